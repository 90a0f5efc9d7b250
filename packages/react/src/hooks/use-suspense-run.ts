import { useSuspenseQuery } from '@tanstack/react-query';
import { runQueryOptions } from '../provider/run-query';
import { useRunlight } from '../provider/runlight-context';
import { useRunStore } from '../provider/use-run-store';
import { useStoreSelector } from '../provider/use-store-selector';
import { type RunView, selectRunView } from './select-run-view';
import type { UseRunOptions } from './use-run';

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
  // Suspends until the snapshot is in the cache; `useRunStore` then seeds the store from it.
  useSuspenseQuery(runQueryOptions(client, runId));
  return useStoreSelector<T | RunView>(
    useRunStore('useSuspenseRun', runId),
    options?.select ?? selectRunView,
    options?.isEqual as ((a: T | RunView, b: T | RunView) => boolean) | undefined,
  );
}
