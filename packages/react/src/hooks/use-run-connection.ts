import type { ConnectionState, RunlightClientError, RunState } from '@runlight/client';
import { useRunStore } from '../provider/use-run-store';
import { useStoreSelector } from '../provider/use-store-selector';

export interface RunConnection {
  /** `idle`, `connecting`, `live`, `reconnecting`, `offline` or `closed`. */
  readonly state: ConnectionState;
  /** The last bad input or transport failure (the shown state is the last good one). */
  readonly error: RunlightClientError | null;
}

const selectConnection = (state: RunState): RunConnection => ({
  state: state.connection,
  error: state.error,
});
const connectionEquals = (a: RunConnection, b: RunConnection) =>
  a.state === b.state && a.error === b.error;

/**
 * The live connection of a run and its last error, e.g. for a "Reconnecting…" banner.
 *
 * @example
 * const { state, error } = useRunConnection(runId);
 */
export function useRunConnection(runId: string): RunConnection {
  return useStoreSelector(
    useRunStore('useRunConnection', runId),
    selectConnection,
    connectionEquals,
  );
}
