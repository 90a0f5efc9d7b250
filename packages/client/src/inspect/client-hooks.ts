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
  /**
   * Told of each control request as the client sends it (`approvals` as the caller gave them),
   * with the promise of its answer — so inspection sees what is sent without wrapping the
   * client's methods (a method taken from the client before it was inspected is seen too).
   */
  sent?: (
    runId: string,
    kind: ControlRequest['kind'],
    answer: Promise<unknown>,
    approvals?: unknown,
  ) => void;
}

/** By the client's `run` function: a client spread into another (multiplexed) keeps its own. */
export const clientHooks = new WeakMap<object, ClientHooks>();
