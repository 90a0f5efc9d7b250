// (a) The baseline: a React 19 page with TanStack Query that loads something.
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
    </QueryClientProvider>
  </StrictMode>,
);
