import type { RunlightClient } from '@runlight/client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { type ReactNode, useLayoutEffect, useMemo, useState } from 'react';
import { createQuerySnapshotLoader } from './run-query';
import { RunlightContext } from './runlight-context';

export interface RunlightProviderProps {
  client: RunlightClient;
  /** The app's query client; when omitted the provider creates one for its lifetime. */
  queryClient?: QueryClient;
  children?: ReactNode;
}

/**
 * Makes a Runlight client available to the hooks and components below, and routes the client's
 * snapshot loads through TanStack Query (one query per run, see `runQueryKey`).
 *
 * @example
 * const client = createRunlightClient({ baseUrl: '/api' });
 * <RunlightProvider client={client}><RunStatus runId={runId} /></RunlightProvider>
 */
export function RunlightProvider({ client, queryClient, children }: RunlightProviderProps) {
  const [ownQueryClient] = useState(() => queryClient ?? new QueryClient());
  const activeQueryClient = queryClient ?? ownQueryClient;
  const value = useMemo(
    () => ({ client, queryClient: activeQueryClient }),
    [client, activeQueryClient],
  );
  // A layout effect runs before any passive effect of the tree, so the loader is in place
  // before the first `useSyncExternalStore` subscription opens a store's connection.
  useLayoutEffect(
    () => client.setSnapshotLoader(createQuerySnapshotLoader(activeQueryClient, client)),
    [client, activeQueryClient],
  );
  return (
    <QueryClientProvider client={activeQueryClient}>
      <RunlightContext.Provider value={value}>{children}</RunlightContext.Provider>
    </QueryClientProvider>
  );
}
