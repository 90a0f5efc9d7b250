import type { RunlightClientError } from '../errors/runlight-client-error';
import type { RunState } from '../merge/run-state';
import { type Activity, selectActivity } from '../select/select-activity';
import { activityEquals } from './activity-equals';

/** What a status display needs: the activity and the server timestamps its time runs between. */
export interface RunStatusView {
  readonly activity: Activity;
  /** When the shown time starts (a server timestamp), if the activity has one. */
  readonly since: string | undefined;
  /** When it stopped, for a finished run (its terminal commit); the time does not tick then. */
  readonly until: string | undefined;
  readonly clockOffsetMs: number | null;
  /** The last bad input or transport failure; `activity` is still the last good one. */
  readonly error: RunlightClientError | null;
}

/**
 * Selects the status of a run. Times come only from durable records: the activity's own
 * `since`; for a queued run its `createdAt`; for `working` before any operation the acquisition
 * (`updatedAt`); for a finished run the time from `createdAt` to the terminal `updatedAt`.
 *
 * @example
 * const { activity, since } = selectRunStatus(store.getState());
 */
export function selectRunStatus(state: RunState): RunStatusView {
  const activity = selectActivity(state);
  const { run } = state;
  let since = activity.since;
  let until: string | undefined;
  if (run !== null) {
    if (activity.kind === 'queued') since = run.createdAt;
    else if (activity.kind === 'working' && since === undefined) since = run.updatedAt;
    else if (
      activity.kind === 'completed' ||
      activity.kind === 'failed' ||
      activity.kind === 'cancelled'
    ) {
      since = run.createdAt;
      until = run.updatedAt;
    }
  }
  return { activity, since, until, clockOffsetMs: state.clockOffsetMs, error: state.error };
}

/**
 * Equal when a status display would show the same thing (text deltas change nothing here).
 *
 * @example
 * useRun(runId, { select: selectRunStatus, isEqual: runStatusEquals });
 */
export function runStatusEquals(a: RunStatusView, b: RunStatusView): boolean {
  return (
    activityEquals(a.activity, b.activity) &&
    a.since === b.since &&
    a.until === b.until &&
    a.clockOffsetMs === b.clockOffsetMs &&
    a.error === b.error
  );
}
