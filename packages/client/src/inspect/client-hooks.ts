import type { RunStore } from '../run-store';

/** A control request before it is sent (see `SentControlRequest`). */
export interface ControlRequest {
  readonly runId: string;
  readonly kind: 'cancel' | 'approvals';
  /** How many answers an `approvals` request carries. */
  readonly answers?: number;
}

/**
 * What a client lets developer tools hook into — its stores, its clock, a store made — and
 * nothing else (never its headers or credentials). Kept tiny: it is in every app's bundle; the
 * inspection itself (`inspectRunlightClient`) only in those that import it.
 */
export interface ClientHooks {
  readonly stores: Map<string, RunStore>;
  readonly now: () => number;
  added?: (store: RunStore) => void;
}

/** By the client's `run` function: a client spread into another (multiplexed) keeps its own. */
export const clientHooks = new WeakMap<object, ClientHooks>();
