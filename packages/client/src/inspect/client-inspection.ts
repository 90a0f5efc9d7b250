import type { RunStore } from '../run-store';

/** A control request this client sent (`cancel`, `answerApprovals`) and how it went. */
export interface SentControlRequest {
  readonly runId: string;
  readonly kind: 'cancel' | 'approvals';
  /** How many answers an `approvals` request carried. */
  readonly answers?: number;
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
 * it sent. Never its headers, credentials or fetch. Obtain it with `inspectRunlightClient`.
 */
export class ClientInspection {
  readonly #stores: Map<string, RunStore>;
  readonly #now: () => number;
  readonly #listeners = new Set<() => void>();
  #requests: readonly SentControlRequest[] = [];
  #recording = false;
  #version = 0;

  constructor(stores: Map<string, RunStore>, now: () => number) {
    this.#stores = stores;
    this.#now = now;
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

  /** Starts `log()` on every store the client holds now and on each it makes later. */
  record(): void {
    this.#recording = true;
    for (const store of this.#stores.values()) store.log();
  }

  /** @internal The client made a store. */
  added(store: RunStore): void {
    if (this.#recording) store.log();
    this.#changed();
  }

  /** @internal Runs a control request and records it. */
  async track<T>(
    request: Omit<SentControlRequest, 'sentAt' | 'status'>,
    send: () => Promise<T>,
  ): Promise<T> {
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

/** Inspections by the client's `run` function: a client spread into another keeps its own. */
const inspections = new WeakMap<object, ClientInspection>();

/** @internal Called by `createRunlightClient`. */
export function registerInspection(run: object, inspection: ClientInspection): void {
  inspections.set(run, inspection);
}

/**
 * The developer-tools view of a client made by `createRunlightClient` (or the multiplexed
 * one), or `null` for another object.
 *
 * @example
 * const inspection = inspectRunlightClient(client);
 * inspection?.record(); // every store keeps its durable log from now on
 */
export function inspectRunlightClient(client: { run: object }): ClientInspection | null {
  return inspections.get(client.run) ?? null;
}
