import type { RunStatusView } from './select-run-status';

/**
 * Why no state of the run could be loaded: the page cannot reach the server (connection
 * `unreachable`), the server refused access (401 / 403), the run does not exist (404, for
 * good), or anything else (bad data, a server error).
 */
export type RunLoadFailure = 'unreachable' | 'access-refused' | 'not-found' | 'unavailable';

/**
 * Why nothing of the run could be loaded, from the connection and the client's typed error
 * (`kind`), or `null` when there is state to show (or it is still loading, or waiting for a run
 * not created yet).
 *
 * @example
 * loadFailureOf(selectRunStatus(store.getState())); // 'access-refused' after a 401
 * loadFailureOf({ activity: { kind: 'loading' }, error: unauthorizedError }); // 'access-refused'
 */
export function loadFailureOf(
  view: Pick<RunStatusView, 'activity' | 'error'> & {
    readonly connectionIssue?: RunStatusView['connectionIssue'];
  },
): RunLoadFailure | null {
  if (view.activity.kind !== 'loading') return null;
  if (view.connectionIssue === 'unreachable') return 'unreachable';
  if (view.error === null) return null;
  if (view.error.kind === 'unauthorized') return 'access-refused';
  if (view.error.kind === 'run-not-found') return 'not-found';
  return 'unavailable';
}
