import {
  type LoadedSnapshot,
  type RunlightClient,
  RunlightClientError,
  type SnapshotLoader,
} from '@runlight/client';
import { type QueryClient, queryOptions } from '@tanstack/react-query';

/**
 * The TanStack Query key of a run's snapshot: one query per run.
 *
 * @example
 * queryClient.invalidateQueries({ queryKey: runQueryKey('run-1') });
 */
export function runQueryKey(runId: string) {
  return ['runlight', 'run', runId] as const;
}

/** Errors a retry cannot fix: the run is gone, or the server sent data that breaks the schema. */
const PERMANENT = new Set(['run-not-found', 'invalid-snapshot', 'malformed-json', 'run-mismatch']);

function shouldRetry(failureCount: number, error: unknown): boolean {
  if (RunlightClientError.isInstance(error)) {
    if (PERMANENT.has(error.kind)) return false;
    const status = error.status ?? 0;
    if (status >= 400 && status < 500 && status !== 408 && status !== 429) return false;
  }
  return failureCount < 3;
}

/**
 * Query options for a run's snapshot (`client.fetchSnapshot`, validated, with its clock-offset
 * estimate). `staleTime` is infinite: the run store keeps itself current from the event stream,
 * so a cached snapshot only seeds it, and its merge ignores one older than what it holds.
 *
 * @example
 * const { data } = useQuery(runQueryOptions(client, 'run-1'));
 */
export function runQueryOptions(client: RunlightClient, runId: string) {
  return queryOptions<LoadedSnapshot>({
    queryKey: runQueryKey(runId),
    queryFn: ({ signal }) => client.fetchSnapshot(runId, { signal }),
    staleTime: Number.POSITIVE_INFINITY,
    retry: shouldRetry,
  });
}

/**
 * Loads a run's snapshot into `queryClient` ahead of rendering (server rendering, route
 * loaders); `dehydrate` / `HydrationBoundary` carry it to the browser, whose hooks render from
 * it at once and whose store resumes the event stream from its cursor. Never throws (like
 * `prefetchQuery`). Without a DOM (on a server) the clock offset is dropped: it measures the
 * server's clock, and a browser must not take it for its own.
 *
 * @example
 * await prefetchRun(queryClient, client, 'run-1');
 * return <HydrationBoundary state={dehydrate(queryClient)}>…</HydrationBoundary>;
 */
export function prefetchRun(
  queryClient: QueryClient,
  client: RunlightClient,
  runId: string,
): Promise<void> {
  const options = runQueryOptions(client, runId);
  if (typeof document !== 'undefined') return queryClient.prefetchQuery(options);
  return queryClient.prefetchQuery({
    ...options,
    queryFn: async ({ signal }) => ({
      ...(await client.fetchSnapshot(runId, { signal })),
      clockOffsetMs: null,
    }),
  });
}

/**
 * A `SnapshotLoader` that goes through the query cache, so the store and every query of a run
 * share one request (in-flight loads are deduplicated) and one cached snapshot.
 *
 * A store's first load may take a cached snapshot (prefetched, hydrated, loaded by a Suspense
 * query): the event stream resumes from its cursor and catches up. Every later load is a gap or
 * reset reload, or a retry after bad data, and needs the server's current snapshot.
 *
 * @example
 * const restore = client.setSnapshotLoader(createQuerySnapshotLoader(queryClient, client));
 */
export function createQuerySnapshotLoader(
  queryClient: QueryClient,
  client: RunlightClient,
): SnapshotLoader {
  return (runId) => {
    const options = runQueryOptions(client, runId);
    const state = client.run(runId).getState();
    const first = state.run === null && state.error === null;
    return queryClient.fetchQuery(first ? options : { ...options, staleTime: 0 });
  };
}
