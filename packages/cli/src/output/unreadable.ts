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
 * client's `notFoundRetryMs`), or — `unavailable` — the server out of contact for `--wait`
 * (`outOfContactMs`, from `ContactWatch`), before the first snapshot or at any time after it.
 * `null` while there is something to wait for.
 */
export function unreadable(
  state: RunState,
  outOfContactMs: number,
  waitMs: number,
): Exclude<RunLoadFailure, 'unreachable'> | null {
  const status = state.error?.status;
  // A refusal inside a batch of snapshots (`runs`) arrives as `http` with the status.
  if (state.connection === 'unauthorized' || status === 401 || status === 403) {
    return 'access-refused';
  }
  if (state.run === null) {
    const failure = loadFailureOf(selectRunStatus(state));
    // Closed with nothing loaded: the client will not try again by itself. (A server it
    // cannot reach is never closed: `--wait` bounds it below, as `unavailable`.)
    if (failure !== null && failure !== 'unreachable' && state.connection === 'closed') {
      return failure;
    }
  }
  // A failed attempt counts from `--wait`; a request still unanswered gets its answer's grace.
  const failed = state.error !== null && state.error.kind !== 'run-not-found';
  return outOfContactMs >= waitMs + (failed ? 0 : ANSWER_GRACE_MS) ? 'unavailable' : null;
}

/**
 * How much longer than `--wait` a request that has neither answered nor failed is given (a
 * `--wait 0` still reads the server's first answer): the "plus a second" of the bound.
 */
export const ANSWER_GRACE_MS = 1_000;

/**
 * Whether the client is out of contact with the server: it is (re)connecting, or reports the
 * server offline, and the server has not answered about the run — no snapshot, no open stream.
 * A 404 inside the not-found window is an answer (the run is not there yet: the client's
 * `notFoundRetryMs` bounds that), so is a refusal; a closed connection is settled.
 *
 * @example
 * outOfContact({ ...state, connection: 'reconnecting' }); // true: nothing answers
 */
export function outOfContact(state: RunState): boolean {
  switch (state.connection) {
    case 'live':
    case 'closed':
    case 'idle':
    case 'unauthorized':
      return false;
    default:
      return state.error?.kind !== 'run-not-found';
  }
}

/** The words of a load failure: the status components' own. */
export function unreadableText(failure: RunLoadFailure, state?: RunState): string {
  const labels = defaultRunStatusLabels;
  if (failure === 'access-refused') return labels.accessRefused;
  if (failure === 'not-found') return labels.notFound;
  return state?.run == null ? labels.error : SERVER_GONE;
}

/**
 * A server that stopped answering after the run was read: the run's state is not what failed to
 * load, the server is (its last known fact stays on the line above).
 */
export const SERVER_GONE = 'The server cannot be reached';

/** The server answers again after `SERVER_GONE`. */
export const SERVER_BACK = 'The server answers again';
