// A server component: RunlightProvider and RunStatus are client components of the library's
// own boundary ('use client' in @runlight/react), rendered here with plain props only.
import { RunlightProvider, RunStatus } from '@runlight/react';
import { runQueryKey } from '@runlight/react/server';

export default function Page() {
  return (
    <main>
      <h1>Runlight in Next.js</h1>
      {/* Called on the server: @runlight/react/server is outside the client boundary. */}
      <p data-query-key={runQueryKey('next-run').join('/')} />
      <RunlightProvider baseUrl="/api">
        <RunStatus runId="next-run" />
      </RunlightProvider>
    </main>
  );
}
