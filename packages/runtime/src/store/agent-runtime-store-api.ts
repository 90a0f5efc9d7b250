/** What the runner asks of its store: the owned mutations, the takeover and the reads. */
import type {
  AgentRun,
  DurableRunEvent,
  RunOperation,
  RunSnapshot,
  RunTrace,
  UIMessage,
} from '@runlight/protocol';
import type { ControlRequests } from './control-requests';
import type { AssistantAppend, OwnerGuard, TerminalCommit } from './log/reducer';
import type { RunInputs } from './run-inputs';

/**
 * The store the runner talks to. Every owned mutation takes `{ owner, fencingToken,
 * expectedRevision }` and fails with `FencingError` (owner or token stale) or
 * `StoreConflictError` (revision stale); each success bumps `revision` by exactly one and
 * appends exactly one durable event.
 */
export interface AgentRuntimeStore {
  /** Creates a queued run; `trace` (telemetry on) is stored with it, in its `created` event. */
  createRun(input: { runId: string; trace?: RunTrace }): Promise<AgentRun>;
  acquireRun(runId: string, input: { owner: string; leaseMs: number }): Promise<AgentRun>;
  recordRunOperation(runId: string, guard: OwnerGuard, operation: RunOperation): Promise<AgentRun>;
  /** Consolidates the whole assistant message (an `assistant-checkpoint` event). */
  saveAssistantCheckpoint(runId: string, guard: OwnerGuard, message: UIMessage): Promise<AgentRun>;
  /**
   * Appends chunks to the assistant message (an `assistant-append` event), extending the last
   * assistant write, which `append.baseRevision` names.
   */
  appendAssistant(runId: string, guard: OwnerGuard, append: AssistantAppend): Promise<AgentRun>;
  commitTerminal(runId: string, guard: OwnerGuard, terminal: TerminalCommit): Promise<AgentRun>;
  /** Renews the owner's lease and nothing else (a `run-status` `lease-renewed` event). */
  renewLease(runId: string, guard: OwnerGuard): Promise<AgentRun>;
  /**
   * Releases the owner's lease (a `run-status` `lease-released` event; `leaseExpiresAt` null):
   * a run paused for tool approvals has no live owner to lose.
   */
  releaseLease(runId: string, guard: OwnerGuard): Promise<AgentRun>;
  /**
   * Hands the owner's lease off (a `run-status` `lease-handed-off` event; `leaseExpiresAt` is
   * now): an owner shutting down gracefully (`runtime.close()`) leaves the run `running` and
   * expired at once, so `findExpiredRuns` returns it and another runner takes it over.
   */
  handOffLease(runId: string, guard: OwnerGuard): Promise<AgentRun>;
  /**
   * Acquires a run whose owner's lease expired — and only such a run: a live lease is a
   * `FencingError` `lease-held` (another recoverer won, or the owner is alive), a run nobody
   * leases an `InvalidTransitionError` `run-not-leased`, an ended one `run-ended`. The
   * compare-and-set decides between competing recoverers. `takeovers` counts every takeover
   * of the run so far, this one included — but not one of a lease handed off (`handOffLease`).
   */
  takeOverRun(
    runId: string,
    input: { owner: string; leaseMs: number },
  ): Promise<{ run: AgentRun; takeovers: number }>;
  /**
   * Runs whose lease expired by `now` (default: the store's clock), oldest expiry first, at most
   * `limit` (default 100).
   */
  findExpiredRuns(query?: { now?: Date; limit?: number }): Promise<ExpiredRun[]>;
  /**
   * The time of the clock that decides this store's leases: the database's for a driver with a
   * clock of its own (`AgentRuntimeDriver.now`), else the process's. Lease expiries are in this
   * time, so whoever compares one with "now" (a served snapshot's `serverTime`) reads it here.
   */
  now?(): Promise<Date>;
  getRun(runId: string): Promise<AgentRun>;
  /** The run and its assistant message, materialised from its last consolidation and appends. */
  getSnapshot(runId: string): Promise<RunSnapshot>;
  readEvents(runId: string, options?: { afterRevision?: number }): Promise<DurableRunEvent[]>;
  /** Durable cancels and approval answers, when the driver stores them (`ControlRequests`). */
  controlRequests?: ControlRequests;
  /** The conversations runs were started with, when the driver stores them (`RunInputs`). */
  runInputs?: RunInputs;
}

/** A run whose owner went silent: its lease expired at `leaseExpiresAt`. */
export interface ExpiredRun {
  runId: string;
  leaseExpiresAt: string;
}
