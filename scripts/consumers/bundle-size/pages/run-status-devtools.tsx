// (e) `run-status` plus `<RunlightDevtools />` from `@runlight/react-devtools`, built for
// production: the devtools must add nothing (measure.mjs checks it).
import { RunlightProvider, RunStatus } from '@runlight/react';
import { RunlightDevtools } from '@runlight/react-devtools';
import { QueryClient, QueryClientProvider, useQuery } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';

function Page() {
  const { data } = useQuery({
    queryKey: ['hello'],
    queryFn: async () => (await fetch('/api/hello')).text(),
  });
  return <p>{data}</p>;
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={new QueryClient()}>
      <Page />
      <RunlightProvider baseUrl="/api">
        <RunStatus runId="run-1" />
        <RunlightDevtools />
      </RunlightProvider>
    </QueryClientProvider>
  </StrictMode>,
);
