// (f) `run-status` plus `<RunlightDevtools />` from `@runlight/react-devtools/production`:
// on in production, the panel in a lazy chunk (measure.mjs shows its weight apart).
import { RunlightProvider, RunStatus } from '@runlight/react';
import { RunlightDevtools } from '@runlight/react-devtools/production';
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
