import { useSuspenseQuery } from '@tanstack/react-query';
import { runQueryOptions } from './run-query';
import { useRunlight } from './runlight-context';
import { type RunView, selectRunView } from './select-run-view';
import type { UseRunOptions } from './use-run';
import { useRunStore } from './use-run-store';
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
  // Suspends until the snapshot is in the cache; `useRunStore` then seeds the store from it.
  useSuspenseQuery(runQueryOptions(client, runId));
  return useStoreSelector<T | RunView>(
    useRunStore('useSuspenseRun', runId),
    options?.select ?? selectRunView,
    options?.isEqual as ((a: T | RunView, b: T | RunView) => boolean) | undefined,
  );
}
