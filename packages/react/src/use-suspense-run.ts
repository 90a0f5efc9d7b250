import { useSuspenseQuery } from '@tanstack/react-query';
import { runQueryOptions } from './run-query';
import { useRunlight } from './runlight-context';
import { type RunView, selectRunView } from './select-run-view';
import type { UseRunOptions } from './use-run';
import { useStoreSelector } from './use-store-selector';

/**
 * `useRun` that suspends until the run's snapshot is loaded (through TanStack Query, so a
 * prefetched or hydrated snapshot renders at once) and throws a load error to the nearest
 * error boundary. Never renders the `loading` activity.
 *
 * @example
 * <Suspense fallback={<Spinner />}><Transcript runId={runId} /></Suspense>
 * function Transcript({ runId }) { const { message } = useSuspenseRun(runId); … }
 */
export function useSuspenseRun(runId: string): RunView;
export function useSuspenseRun<T>(runId: string, options: UseRunOptions<T>): T;
export function useSuspenseRun<T>(runId: string, options?: UseRunOptions<T>): T | RunView {
  const { client } = useRunlight('useSuspenseRun');
  const { data } = useSuspenseQuery(runQueryOptions(client, runId));
  const store = client.run(runId);
  // Seed the store from the cache before reading it, as `HydrationBoundary` seeds a query
  // cache during render: idempotent (the merge returns the same state for a snapshot it
  // holds), so StrictMode's second render and concurrent readers see the same state.
  if (store.getState().run === null) {
    store.applySnapshot(data.snapshot, { clockOffsetMs: data.clockOffsetMs });
  }
  return useStoreSelector<T | RunView>(
    store,
    options?.select ?? selectRunView,
    options?.isEqual as ((a: T | RunView, b: T | RunView) => boolean) | undefined,
  );
}
