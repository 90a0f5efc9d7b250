// (b) The baseline plus the README's browser side: RunlightProvider and one RunStatus.
import { RunlightProvider, RunStatus } from '@runlight/react';
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
      </RunlightProvider>
    </QueryClientProvider>
  </StrictMode>,
);
