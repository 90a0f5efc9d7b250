import type { Activity, RunState } from '@runlight/client';
import { selectActivity } from '@runlight/client';
import type { RunFailure, RunOperation, RunStatus } from '@runlight/protocol';

/**
 * The AG-UI `activityType` of the one activity message a Runlight run shows: its current
 * operation and what the run is doing, as durable facts. AG-UI has no event for a run's status,
 * compaction, provider wait or retry; `ACTIVITY_SNAPSHOT` / `ACTIVITY_DELTA` with an open
 * `activityType` is its carrier, and a consumer that does not know the type must tolerate it.
 */
export const OPERATION_ACTIVITY_TYPE = 'runlight.operation';

/**
 * The content of the `runlight.operation` activity (documented in `docs/ag-ui.md`): the run's
 * whole `lastOperation` record as stored — kind, phase, its original `startedAt` /
 * `firstOutputAt`, `attempt`, `retryAt`, `maxAttempts`, `outcome` — and the activity derived from
 * the durable facts by `@runlight/client`'s `selectActivity` (the one definition every Runlight
 * UI uses), so an AG-UI UI can show "compacting", "waiting for the model since T", "retrying in
 * 4 s" or "the worker stopped responding" with the original server timestamps.
 */
export interface OperationActivityContent {
  runId: string;
  status: RunStatus;
  /**
   * `queued`, `compacting`, `waiting-for-model`, `streaming`, `awaiting-approval`, `working`,
   * `stalled`, `completed`, `failed`, `cancelled` (`selectActivity`'s kinds).
   */
  kind: Activity['kind'];
  /** The original server timestamp the activity began at (never a connection time). */
  since: string | null;
  /** The run's `lastOperation`, whole, or `null` before the first one. */
  operation: RunOperation | null;
  /** `waiting-for-model` after a failed attempt: the one-based attempt being waited for. */
  attempt: number | null;
  /** A failed run: who owned the failure, as a code (never provider text). */
  failure: RunFailure | null;
  /** `stalled`: what the run was doing when its worker went silent. */
  interrupted: Activity['kind'] | null;
  /** When the owner's lease expires (server clock); `null` when nobody holds the run. */
  leaseExpiresAt: string | null;
}

/**
 * The `runlight.operation` content of a run's merged state, or `null` before its first snapshot.
 * `now` decides whether an expired lease reads as `stalled` (server clock estimate).
 *
 * @example
 * const content = operationActivityOf(store.getState(), Date.now());
 * content?.kind; // 'waiting-for-model'
 */
export function operationActivityOf(state: RunState, now: number): OperationActivityContent | null {
  const run = state.run;
  if (run === null) return null;
  const activity = selectActivity(state, now);
  return {
    runId: run.id,
    status: run.status,
    kind: activity.kind,
    since: activity.since ?? null,
    operation: run.lastOperation,
    attempt: activity.attempt ?? null,
    failure: run.failure,
    interrupted: activity.interrupted?.kind ?? null,
    leaseExpiresAt: run.leaseExpiresAt,
  };
}
