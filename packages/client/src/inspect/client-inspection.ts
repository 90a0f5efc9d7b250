import type { RunlightClient } from '../create-runlight-client';
import type { RunStore } from '../run-store';
import { runLogOf } from '../run-store-log';
import { type ClientHooks, type ControlRequest, clientHooks } from './client-hooks';

type ControlMethods = Pick<RunlightClient, 'cancel' | 'answerApprovals'>;

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
   * @internal Made by `inspectRunlightClient`: hooks into the client's store creation, and
   * wraps its `cancel` and `answerApprovals` to see what is sent (the app's client object is
   * the one wrapped: the client itself carries no tracking code).
   */
  constructor(hooks: ClientHooks, client: Partial<ControlMethods>) {
    this.#stores = hooks.stores;
    this.#now = hooks.now;
    hooks.added = (store) => this.#added(store);
    const { cancel, answerApprovals } = client;
    if (cancel !== undefined) {
      client.cancel = (runId) => this.#track({ runId, kind: 'cancel' }, () => cancel(runId));
    }
    if (answerApprovals !== undefined) {
      client.answerApprovals = (runId, approvals) =>
        this.#track({ runId, kind: 'approvals', answers: approvals.length }, () =>
          answerApprovals(runId, approvals),
        );
    }
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

  async #track<T>(request: ControlRequest, send: () => Promise<T>): Promise<T> {
    const sent: SentControlRequest = { ...request, sentAt: this.#now(), status: 'pending' };
    this.#put(sent, null);
    try {
      const result = await send();
      this.#put({ ...sent, status: 'accepted' }, sent);
      return result;
    } catch (error) {
      const kind = (error as { kind?: unknown } | null)?.kind;
      this.#put(
        { ...sent, status: 'failed', ...(typeof kind === 'string' ? { errorKind: kind } : {}) },
        sent,
      );
      throw error;
    }
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
export function inspectRunlightClient(
  client: { run: object } & Partial<ControlMethods>,
): ClientInspection | null {
  const hooks = clientHooks.get(client.run);
  if (hooks === undefined) return null;
  let inspection = inspections.get(hooks);
  if (inspection === undefined) {
    inspection = new ClientInspection(hooks, client);
    inspections.set(hooks, inspection);
  }
  return inspection;
}
