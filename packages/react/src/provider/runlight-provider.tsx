'use client';

import { createRunlightClient, type RunlightClient } from '@runlight/client';
import { QueryClient, QueryClientContext, QueryClientProvider } from '@tanstack/react-query';
import { type ReactNode, useContext, useLayoutEffect, useMemo, useState } from 'react';
import { createQuerySnapshotLoader } from './run-query';
import { RunlightContext } from './runlight-context';

interface RunlightProviderBaseProps {
  /**
   * The query client that caches run snapshots. Default: the app's own, from the nearest
   * `QueryClientProvider`; without one, a client the provider creates for its lifetime. Only
   * when the app has no `QueryClientProvider` above does the provider add one (so
   * `HydrationBoundary` and `useQuery` below work); it never shadows the app's.
   */
  queryClient?: QueryClient;
  /**
   * Whether anything recovers a stalled run in this deployment: true when it runs Runlight's
   * recovery (`createRunRecovery`) or another worker takes expired leases over. The status
   * components say so (`The worker stopped responding — recovering`); default false, and a
   * stalled run reads `The worker stopped responding`, claiming no recovery nothing will do.
   * A component's own `recovers` prop wins.
   */
  recovers?: boolean;
  children?: ReactNode;
}

/** A client you created (`createRunlightClient`). */
export interface RunlightProviderClientProps extends RunlightProviderBaseProps {
  client: RunlightClient;
  baseUrl?: never;
}

/**
 * Only a base URL: the provider creates the client once, for its lifetime. Plain props, so a
 * React Server Component (a Next.js layout or page) can render the provider directly.
 */
export interface RunlightProviderUrlProps extends RunlightProviderBaseProps {
  /** Where the run handlers are mounted, e.g. `/api` (→ `/api/runs/:id`). */
  baseUrl: string;
  client?: never;
}

export type RunlightProviderProps = RunlightProviderClientProps | RunlightProviderUrlProps;

/**
 * Makes a Runlight client available to the hooks and components below, and routes the client's
 * snapshot loads through TanStack Query (one query per run, see `runQueryKey`).
 *
 * @example
 * const client = createRunlightClient({ baseUrl: '/api' });
 * <RunlightProvider client={client}><RunStatus runId={runId} /></RunlightProvider>
 * // or, e.g. in a Next.js server component:
 * <RunlightProvider baseUrl="/api"><RunStatus runId={runId} /></RunlightProvider>
 * // a deployment that runs `createRunRecovery`:
 * <RunlightProvider baseUrl="/api" recovers><RunStatus runId={runId} /></RunlightProvider>
 */
export function RunlightProvider(props: RunlightProviderProps) {
  const { queryClient, recovers = false, children } = props;
  const appQueryClient = useContext(QueryClientContext);
  const [ownQueryClient] = useState(() => queryClient ?? appQueryClient ?? new QueryClient());
  const activeQueryClient = queryClient ?? appQueryClient ?? ownQueryClient;
  // Clients created from `baseUrl`, one per URL for the provider's lifetime (stores and their
  // connections live in the client, so re-creating it on every render would drop them).
  const [ownClients] = useState(() => new Map<string, RunlightClient>());
  const client = props.client ?? ownClient(ownClients, props.baseUrl);
  const value = useMemo(
    () => ({ client, queryClient: activeQueryClient, recovers }),
    [client, activeQueryClient, recovers],
  );
  // A layout effect runs before any passive effect of the tree, so the loader is in place
  // before the first `useSyncExternalStore` subscription opens a store's connection.
  useLayoutEffect(
    () => client.setSnapshotLoader(createQuerySnapshotLoader(activeQueryClient, client)),
    [client, activeQueryClient],
  );
  const provided = <RunlightContext.Provider value={value}>{children}</RunlightContext.Provider>;
  if (appQueryClient !== undefined) return provided;
  return <QueryClientProvider client={activeQueryClient}>{provided}</QueryClientProvider>;
}

function ownClient(clients: Map<string, RunlightClient>, baseUrl: string): RunlightClient {
  let client = clients.get(baseUrl);
  if (client === undefined) {
    client = createRunlightClient({ baseUrl });
    clients.set(baseUrl, client);
  }
  return client;
}
