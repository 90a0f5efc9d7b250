import { type LoadedSnapshot, type RunStore, seedRunStore } from '@runlight/client';
import { runQueryKey } from './run-query';
import { useRunlight } from './runlight-context';

/**
 * The store of `runId` for a hook named `hook`, seeded from the query cache when it holds a
 * snapshot the store has not merged yet (prefetched for server rendering, hydrated, loaded by a
 * Suspense query). Seeding happens during render, as `HydrationBoundary` seeds a query cache:
 * it is idempotent (the merge returns the same state for a snapshot it holds), so the server,
 * the hydrating client and StrictMode's second render all read the same state. A store that
 * already failed is not seeded again, so a bad cached snapshot cannot loop.
 */
export function useRunStore(hook: string, runId: string): RunStore {
  const { client, queryClient } = useRunlight(hook);
  const store = client.run(runId);
  const state = store.getState();
  // Looked up only while the store is empty: `seedRunStore` merges nothing into a held state.
  if (state.run === null && state.error === null) {
    const cached = queryClient.getQueryData<LoadedSnapshot>(runQueryKey(runId));
    if (cached) seedRunStore(store, cached);
  }
  return store;
}
