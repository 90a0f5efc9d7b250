import { type RunHistoryState, runHistoryOf } from '@runlight/client';
import { useSyncExternalStore } from 'react';
import { useRunlight } from '../provider/runlight-context';

/**
 * The operation history of a run: every `run-operation` event, once, in revision order, with
 * the original server timestamps — loaded from `GET …/runs/:id/operations` when the first
 * component uses it and merged with the run's live events afterwards (reloads, resets and
 * reconnects included). A status indicator never needs it; a timeline does.
 *
 * @example
 * const { operations, status } = useRunHistory(runId);
 */
export function useRunHistory(runId: string): RunHistoryState {
  const { client } = useRunlight('useRunHistory');
  const history = runHistoryOf(client, runId);
  return useSyncExternalStore(history.subscribe, history.getState, history.getState);
}
