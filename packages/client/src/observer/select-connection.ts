import type { RunlightClientError } from '../errors/runlight-client-error';
import type { ConnectionState, RunState } from '../merge/run-state';

/** The live connection of a run and its last error. */
export interface RunConnection {
  /** `idle`, `connecting`, `live`, `reconnecting`, `offline`, `unauthorized` or `closed`. */
  readonly state: ConnectionState;
  /** The last bad input or transport failure (the shown state is the last good one). */
  readonly error: RunlightClientError | null;
}

/**
 * The connection slice of a run's state, e.g. for a "Reconnecting…" banner; compare with
 * `connectionEquals`.
 *
 * @example
 * new RunObserver(store, { select: selectConnection, isEqual: connectionEquals });
 */
export function selectConnection(state: RunState): RunConnection {
  return { state: state.connection, error: state.error };
}

/**
 * Equal when the connection state and the error are the same.
 *
 * @example
 * connectionEquals(selectConnection(a), selectConnection(b));
 */
export function connectionEquals(a: RunConnection, b: RunConnection): boolean {
  return a.state === b.state && a.error === b.error;
}
