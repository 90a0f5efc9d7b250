import type { DurableRunEvent } from '@runlight/protocol';
import type { StoredRun } from './stored-run';

/**
 * A normalized driver: it loads a run record and performs one atomic compare-and-set. All
 * rules live in the reference reducer above it, so a driver is storage only.
 *
 * A driver may answer on a later tick (a worker, a socket, a real database); nothing above it
 * assumes otherwise. Values it returns are validated by the store before use (`unknown`).
 */
export interface AgentRuntimeDriver {
  /** The stored record, or `null` when the run does not exist. */
  load(runId: string): Promise<unknown>;
  /**
   * Atomically: when the stored revision equals `expectedRevision` (`null`: the run must not
   * exist), store `next` and append `events`; otherwise change nothing. Resolves `true` when
   * written, `false` when the revision did not match.
   */
  compareAndSet(
    runId: string,
    expectedRevision: number | null,
    next: StoredRun,
    events: readonly DurableRunEvent[],
  ): Promise<boolean>;
  /** Durable events with `revision > afterRevision`, in revision order. */
  readEvents(runId: string, afterRevision: number): Promise<unknown[]>;
  /**
   * Runs whose lease expired at or before `now` (`lease.expiresAt <= now`; a run without a
   * lease — queued, paused, ended — never), oldest expiry first, at most `limit` of them:
   * `{ runId, leaseExpiresAt }` each. What the recovery loop polls, so it must stay cheap
   * however many runs are stored (an index on the lease expiry).
   */
  findExpiredRuns(query: { now: string; limit: number }): Promise<unknown[]>;
}
