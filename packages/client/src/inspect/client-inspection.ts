import type { RunStore } from '../run-store';
import { runLogOf } from '../run-store-log';
import { type ClientHooks, type ControlRequest, clientHooks } from './client-hooks';

/** A control request this client sent (`cancel`, `answerApprovals`) and how it went. */
export interface SentControlRequest extends ControlRequest {
  /** Client wall clock (ms). */
  readonly sentAt: number;
  /** `pending` until the server answered; `accepted` on its 202; `failed` with the error kind. */
  readonly status: 'pending' | 'accepted' | 'failed';
  readonly errorKind?: string;
}

/** The most control requests remembered per client; older ones are forgotten first. */
const MAX_REQUESTS = 100;

/**
 * What developer tools may see of a client: the run stores it holds and the control requests
 * it sent from the moment it was first inspected. Never its headers, credentials or fetch.
 * Obtain it with `inspectRunlightClient`.
 */
export class ClientInspection {
  readonly #stores: Map<string, RunStore>;
  readonly #now: () => number;
  readonly #listeners = new Set<() => void>();
  #requests: readonly SentControlRequest[] = [];
  #recording = false;
  #version = 0;

  /**
   * @internal Made by `inspectRunlightClient`: hooks into the client's store creation and its
   * sending of control requests. The app's client object is left as it is: a `cancel` taken
   * from it before the devtools came is seen as well.
   */
  constructor(hooks: ClientHooks) {
    this.#stores = hooks.stores;
    this.#now = hooks.now;
    hooks.added = (store) => this.#added(store);
    hooks.sent = (runId, kind, answer, approvals) => {
      const request: ControlRequest =
        kind === 'cancel'
          ? { runId, kind }
          : { runId, kind, answers: Array.isArray(approvals) ? approvals.length : 0 };
      this.#track(request, answer);
    };
  }

  /** Changes whenever a store is added or a control request moves: for `useSyncExternalStore`. */
  getVersion = (): number => this.#version;

  subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  };

  /** Every run store of the client, in the order they were first asked for. */
  stores(): RunStore[] {
    return [...this.#stores.values()];
  }

  /** The control requests sent, oldest first (the last 100). */
  controlRequests(): readonly SentControlRequest[] {
    return this.#requests;
  }

  /** Starts `runLogOf` on every store the client holds now and on each it makes later. */
  record(): void {
    this.#recording = true;
    for (const store of this.#stores.values()) runLogOf(store);
  }

  #added(store: RunStore): void {
    if (this.#recording) runLogOf(store);
    this.#changed();
  }

  /** Notes the request as pending, then as the server answered; the caller keeps the answer. */
  #track(request: ControlRequest, answer: Promise<unknown>): void {
    const sent: SentControlRequest = { ...request, sentAt: this.#now(), status: 'pending' };
    this.#put(sent, null);
    answer.then(
      () => this.#put({ ...sent, status: 'accepted' }, sent),
      (error: unknown) => {
        const kind = (error as { kind?: unknown } | null)?.kind;
        this.#put(
          { ...sent, status: 'failed', ...(typeof kind === 'string' ? { errorKind: kind } : {}) },
          sent,
        );
      },
    );
  }

  #put(next: SentControlRequest, replaces: SentControlRequest | null): void {
    const kept = this.#requests.filter((request) => request !== replaces);
    this.#requests = [...kept, next].slice(-MAX_REQUESTS);
    this.#changed();
  }

  #changed(): void {
    this.#version++;
    for (const listener of [...this.#listeners]) listener();
  }
}

/** One inspection per client (its hooks): a spread copy of a client shares its stores. */
const inspections = new WeakMap<ClientHooks, ClientInspection>();

/**
 * The developer-tools view of a client made by `createRunlightClient` (or the multiplexed
 * one), or `null` for another object.
 *
 * @example
 * const inspection = inspectRunlightClient(client);
 * inspection?.record(); // every store keeps its durable log from now on
 */
export function inspectRunlightClient(client: { run: object }): ClientInspection | null {
  const hooks = clientHooks.get(client.run);
  if (hooks === undefined) return null;
  let inspection = inspections.get(hooks);
  if (inspection === undefined) {
    inspection = new ClientInspection(hooks);
    inspections.set(hooks, inspection);
  }
  return inspection;
}
