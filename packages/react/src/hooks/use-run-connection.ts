import { connectionEquals, type RunConnection, selectConnection } from '@runlight/client';
import { useRunStore } from '../provider/use-run-store';
import { useStoreSelector } from '../provider/use-store-selector';

export type { RunConnection };

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
