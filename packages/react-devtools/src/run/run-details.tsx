import { type ClientInspection, type RunStore, runLogOf } from '@runlight/client';
import { RunTimeline } from '@runlight/react';
import { useSyncExternalStore } from 'react';
import { CopyRunButton } from './copy-run-button';
import { EventLog } from './event-log';
import { RunOverview } from './run-overview';
import { TimeTravel } from './time-travel';
import { useWatchedRun } from './use-watched-run';

/** Everything about the selected run, section by section. */
export function RunDetails({
  store,
  inspection,
  recovers,
}: {
  store: RunStore;
  inspection: ClientInspection;
  recovers: boolean;
}) {
  const log = runLogOf(store);
  const state = useWatchedRun(store);
  const logState = useSyncExternalStore(log.subscribe, log.getState, log.getState);
  const version = useSyncExternalStore(
    inspection.subscribe,
    inspection.getVersion,
    inspection.getVersion,
  );
  const requests = inspection.controlRequests().filter((request) => request.runId === store.runId);
  return (
    <div
      data-testid="runlight-devtools-run-details"
      data-run-id={store.runId}
      data-version={version}
    >
      <section aria-labelledby="rl-overview">
        <h3 id="rl-overview">Run {store.runId}</h3>
        <RunOverview state={state} requests={requests} recovers={recovers} />
        <p>
          <CopyRunButton store={store} inspection={inspection} />
        </p>
      </section>
      <section aria-labelledby="rl-waterfall">
        <h3 id="rl-waterfall">Operation waterfall</h3>
        <RunTimeline runId={store.runId} unstyled recovers={recovers} caption="Operations" />
      </section>
      <section aria-labelledby="rl-travel">
        <h3 id="rl-travel">Time travel</h3>
        <TimeTravel log={log} logState={logState} recovers={recovers} />
      </section>
      <section aria-labelledby="rl-log">
        <h3 id="rl-log">Durable event log</h3>
        <EventLog logState={logState} />
      </section>
    </div>
  );
}
