/**
 * `@runlight/react/server`: what a server (a React Server Component, a route loader) calls
 * outside the package's `'use client'` boundary — prefetching a run's snapshot into a
 * `QueryClient` to `dehydrate` it, and the query key to invalidate it. Everything in
 * `@runlight/react` itself is a client reference on a React server.
 *
 * @example
 * import { prefetchRun } from '@runlight/react/server';
 * await prefetchRun(queryClient, client, runId);
 */
export { prefetchRun, runQueryKey, runQueryOptions } from './provider/run-query';
