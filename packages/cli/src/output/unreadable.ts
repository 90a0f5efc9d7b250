import {
  defaultRunStatusLabels,
  loadFailureOf,
  type RunLoadFailure,
  type RunState,
  selectRunStatus,
} from '@runlight/client';

/**
 * Why a run cannot be read, once that is final for a command line: access refused (also when
 * revoked mid-run: there is no one to sign in again), the run not found past `--wait` (the
 * client's `notFoundRetryMs`), or nothing loaded and the server failing past `deadline`.
 * `null` while there is something to wait for.
 */
export function unreadable(
  state: RunState,
  now: number,
  deadline: number,
): Exclude<RunLoadFailure, 'unreachable'> | null {
  if (state.run !== null) return state.connection === 'unauthorized' ? 'access-refused' : null;
  // A refusal inside a batch of snapshots (`runs`) arrives as `http` with the status.
  const status = state.error?.status;
  if (status === 401 || status === 403) return 'access-refused';
  const loaded = loadFailureOf(selectRunStatus(state));
  // A server it cannot reach is, for the command line, one failing: `--wait` bounds both.
  const failure = loaded === 'unreachable' ? 'unavailable' : loaded;
  // Closed with nothing loaded: the client will not try again by itself.
  if (failure !== null && state.connection === 'closed') return failure;
  if (failure === 'unavailable' && now < deadline) return null;
  return failure;
}

/** The words of a load failure: the status components' own. */
export function unreadableText(failure: RunLoadFailure): string {
  const labels = defaultRunStatusLabels;
  return failure === 'access-refused'
    ? labels.accessRefused
    : failure === 'not-found'
      ? labels.notFound
      : labels.error;
}
