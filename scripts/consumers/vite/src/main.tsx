import { RunlightProvider, RunStatus } from '@runlight/react';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <RunlightProvider baseUrl="/api">
      <RunStatus runId={new URLSearchParams(location.search).get('run') ?? 'run-1'} />
    </RunlightProvider>
  </StrictMode>,
);
