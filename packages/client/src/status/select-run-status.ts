import type { RunlightClientError } from '../errors/runlight-client-error';
import type { ConnectionState, RunState } from '../merge/run-state';
import { type Activity, selectActivity } from '../select/select-activity';
import { activityEquals } from './activity-equals';

/** The connection states a status shows (`RunStatusView.connectionIssue`). */
export type ConnectionIssue = 'unreachable' | 'waiting' | null;

/** What a status display needs: the activity and the server timestamps its time runs between. */
export interface RunStatusView {
  readonly activity: Activity;
  /** When the shown time starts (a server timestamp), if the activity has one. */
  readonly since: string | undefined;
  /**
   * When it stopped, for a finished run (its terminal commit) — or, while the server cannot be
   * reached, the last moment the run was known (`lastHeardAt` on the server clock): the time
   * does not tick then.
   */
  readonly until: string | undefined;
  /**
   * What the connection changes about the status (only these, so a status does not re-render
   * as a stream connects): `unreachable` — the server cannot be reached and the activity is the
   * run's last known one (words: `describeRunStatus`); `waiting` — a request of this client the
   * browser has not answered; else `null`.
   */
  readonly connectionIssue: ConnectionIssue;
  readonly clockOffsetMs: number | null;
  /** The last bad input or transport failure; `activity` is still the last good one. */
  readonly error: RunlightClientError | null;
}

/**
 * Selects the status of a run. Times come only from durable records: the activity's own
 * `since`; for a queued run its `createdAt`; for `working` before any operation the acquisition
 * (`updatedAt`); for a finished run the time from `createdAt` to the terminal `updatedAt`.
 * While the server cannot be reached (`unreachable`) the activity is the one known when the
 * server last answered (`lastHeardAt`) and the time stops there: the client cannot know what
 * happened since, so it does not count on as if it did (nor turn `stalled` meanwhile).
 *
 * @example
 * const { activity, since } = selectRunStatus(store.getState());
 */
export function selectRunStatus(state: RunState): RunStatusView {
  const heardAt = state.connection === 'unreachable' ? state.lastHeardAt : undefined;
  const activity = heardAt === undefined ? selectActivity(state) : activityAsOf(state, heardAt);
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
  if (heardAt !== undefined && until === undefined && since !== undefined) {
    until = new Date(heardAt + (state.clockOffsetMs ?? 0)).toISOString();
  }
  return {
    activity,
    since,
    until,
    clockOffsetMs: state.clockOffsetMs,
    error: state.error,
    connectionIssue: issueOf(state.connection),
  };
}

function issueOf(connection: ConnectionState): ConnectionIssue {
  return connection === 'unreachable' || connection === 'waiting' ? connection : null;
}

/** The activity as it was at client time `at` (no elapsed time: the view's `until` holds it). */
function activityAsOf(state: RunState, at: number): Activity {
  const { elapsedMs: _elapsed, ...activity } = selectActivity(state, at);
  return activity;
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
    a.error === b.error &&
    a.connectionIssue === b.connectionIssue
  );
}
