import { createMultiplexedRunlightClient } from '@runlight/client';
import { RunlightProvider } from '@runlight/react';
import { useCallback, useEffect, useState } from 'react';
import { RealModelPanel } from './real-model-panel';
import { VisibleRunStatus } from './visible-run-status';

interface ListedRun {
  runId: string;
  label: string;
  createdAt: string;
}

/** How many runs share the one event-stream connection now (polled from the multiplexer). */
function useSharedRunCount(client: ReturnType<typeof createMultiplexedRunlightClient>): number {
  const [count, setCount] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => setCount(client.multiplexer.runIds().length), 250);
    return () => clearInterval(timer);
  }, [client]);
  return count;
}

/**
 * Many runs on one page (`/runs`): the recent runs, each with a live `RunStatus`, all served over
 * ONE multiplexed event-stream connection with batched snapshot loads
 * (`createMultiplexedRunlightClient`). Rows out of view hold no subscription.
 */
export function RunsListPage() {
  const [client] = useState(() => createMultiplexedRunlightClient({ baseUrl: '/api' }));
  const [runs, setRuns] = useState<ListedRun[]>([]);
  const [busy, setBusy] = useState(false);
  const shared = useSharedRunCount(client);

  const refresh = useCallback(async () => {
    const response = await fetch('/api/demo/runs-list');
    if (response.ok) setRuns(((await response.json()) as { runs: ListedRun[] }).runs);
  }, []);
  useEffect(() => {
    void refresh();
  }, [refresh]);

  const startBatch = async () => {
    setBusy(true);
    try {
      await fetch('/api/demo/runs-list', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ count: 20 }),
      });
      await refresh();
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="page">
      <header className="page-header">
        <h1>Runlight playground — many runs</h1>
        <p>
          Every row is a live <code>RunStatus</code>. All of them share one event-stream connection
          (a browser on HTTP/1.1 allows six per origin); a row scrolled out of view leaves it.{' '}
          <a href="/">Back to the scenarios</a>
        </p>
      </header>
      <div className="layout">
        <aside className="sidebar">
          <section className="card">
            <h2>Runs</h2>
            <button type="button" data-testid="start-batch" disabled={busy} onClick={startBatch}>
              Start 20 runs
            </button>
            <p data-testid="shared-runs">
              Runs on the shared connection: <strong>{shared}</strong>
            </p>
          </section>
          <RealModelPanel onStarted={refresh} />
        </aside>
        <main className="content">
          <section className="card">
            <h2>Recent runs</h2>
            <RunlightProvider client={client} recovers>
              {runs.length === 0 ? (
                <p className="runs-list-empty">No runs yet: start some.</p>
              ) : null}
              <ol className="runs-list" data-testid="runs-list">
                {runs.map((run) => (
                  <li key={run.runId} data-testid="runs-list-row" data-run-id={run.runId}>
                    <span className="runs-list-label">{run.label}</span>
                    <a
                      className="runs-list-id"
                      href={`/?run=${encodeURIComponent(run.runId)}`}
                      title={run.runId}
                    >
                      <code>{run.runId}</code>
                    </a>
                    <VisibleRunStatus runId={run.runId} />
                  </li>
                ))}
              </ol>
            </RunlightProvider>
          </section>
        </main>
      </div>
    </div>
  );
}
