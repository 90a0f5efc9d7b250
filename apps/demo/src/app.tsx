import { createRunlightClient, RunMultiplexer, shareTabs } from '@runlight/client';
import { RunlightProvider } from '@runlight/react';
import { RunlightDevtools } from '@runlight/react-devtools';
import { useState } from 'react';
import { RunPanel } from './run-panel';
import { ScenarioPicker } from './scenario-picker';
import { SettingsControls } from './settings-controls';
import { useRunIdParam } from './use-run-id-param';
import { WireLog } from './wire-log';

/**
 * The page's one transport for event streams: the tabs of this browser share each run's stream
 * (`shareTabs`), and the leading tab reads every run of every tab over ONE multiplexed
 * connection — so ten playground tabs cost the server one event stream, and the browser's six
 * connections per host stay free for the pages, snapshots and controls.
 */
const multiplexer = new RunMultiplexer({
  baseUrl: '/api',
  fetch: (input, init) => globalThis.fetch(input, init),
});
const sharedStreams = shareTabs({ baseUrl: '/api', fetch: multiplexer.fetch });
/** `?shareTabs=0`: every tab its own per-run streams, as before issue 48 (for comparison). */
const sharing = new URLSearchParams(window.location.search).get('shareTabs') !== '0';
/** Whether this tab reads the shared streams: the many-tabs test closes the leading tab. */
(window as { runlightTabLeading?: () => boolean }).runlightTabLeading = () =>
  [...sharedStreams.shares.values()].some((share) => share.leading);

/** A client whose event streams (its view of the shared ones) are recorded in its own raw event log. */
function clientSession(runId: string | null, generation: number) {
  const wireLog = sharing ? new WireLog(sharedStreams) : new WireLog();
  // The demo server creates a run before it answers its id, so a 404 means the run is not
  // there (a restarted server keeps none): no window of waiting for it to appear.
  const client = createRunlightClient({
    baseUrl: '/api',
    fetch: wireLog.fetch,
    notFoundRetryMs: 0,
  });
  return { runId, client, wireLog, generation };
}

/** The playground page: scenarios and settings on the left, the selected run on the right. */
export function App() {
  const [runId, setRunId] = useRunIdParam();
  // A fresh client holds nothing merged: a new connection that starts from the snapshot.
  // Each run gets its own client (and raw event log); the button opens another for the run.
  const [session, setSession] = useState(() => clientSession(runId, 0));
  if (session.runId !== runId) setSession(clientSession(runId, 0));
  const { client, wireLog, generation } = session;

  return (
    <div className="page">
      <header className="page-header">
        <h1>Runlight playground</h1>
        <p>
          Every fact on this page comes from durable run records and live events, merged by the
          client. Reload, drop the connection or open a fresh client: the truth stays the same.
        </p>
      </header>
      <div className="layout">
        <aside className="sidebar">
          <ScenarioPicker onStarted={setRunId} />
          <SettingsControls />
        </aside>
        <main className="content">
          {runId === null ? (
            <p className="empty" data-testid="no-run">
              Pick a scenario to start a run.
            </p>
          ) : (
            // The demo's server runs recovery (`createRunRecovery`): a stalled run is taken over.
            <RunlightProvider client={client} key={`${runId}:${generation}`} recovers>
              <RunPanel
                runId={runId}
                client={client}
                wireLog={wireLog}
                generation={generation}
                onFreshClient={() => setSession(clientSession(runId, generation + 1))}
              />
            </RunlightProvider>
          )}
        </main>
      </div>
      {/* Development only: `@runlight/react-devtools` renders nothing in a production build. */}
      <RunlightDevtools key={`${runId}:${generation}`} client={client} recovers />
    </div>
  );
}
