import type { ActivityKind, RunlightClient } from '@runlight/client';
import { useRunStatus } from '@runlight/react';
import { useState } from 'react';
import { AssistantMessage } from './assistant-message';
import { demoApi } from './demo-api-client';
import { EventLog } from './event-log';
import { OperationTimeline } from './operation-timeline';
import { RegistryStatus } from './registry-status';
import { RunSummary } from './run-summary';
import { ServerNotes } from './server-notes';
import type { WireLog } from './wire-log';

export interface RunPanelProps {
  runId: string;
  client: RunlightClient;
  wireLog: WireLog;
  /** How many fresh clients were opened on this page (0: the first). */
  generation: number;
  onFreshClient: () => void;
}

/** A finished run has nothing to cancel and no live connection to drop. */
const ENDED = new Set<ActivityKind>(['completed', 'failed', 'cancelled']);
/** Without a run record (still loading, or none) there is nothing to cancel or drop either. */
const NO_RUN = new Set<ActivityKind>(['loading', 'not-created']);

/** Why Cancel (or Drop) is off, or `null` when it is on. */
function whyOff(kind: ActivityKind, gone: boolean, action: 'cancel' | 'drop'): string | null {
  if (gone) return 'The run does not exist';
  if (NO_RUN.has(kind)) return 'No run is loaded';
  if (!ENDED.has(kind)) return null;
  return action === 'cancel'
    ? 'The run ended: there is nothing to cancel'
    : 'The run ended: its event stream is closed';
}

/** Everything about one run, all from the merged client state, plus the demo's actions. */
export function RunPanel({ runId, wireLog, generation, onFreshClient }: RunPanelProps) {
  const [actionError, setActionError] = useState<string | null>(null);
  const status = useRunStatus(runId);
  // A run the server does not have (the playground keeps runs in memory): one message, in the
  // summary, and nothing below it that would wait for a run that will never come.
  const gone = status.loadFailure === 'not-found';
  const noCancel = whyOff(status.activity.kind, gone, 'cancel');
  const noDrop = whyOff(status.activity.kind, gone, 'drop');
  const act = (action: () => Promise<unknown>) => () => {
    setActionError(null);
    action().catch((cause: unknown) =>
      setActionError(cause instanceof Error ? cause.message : String(cause)),
    );
  };
  return (
    <div className="run-panel" data-testid="run-panel" data-run-id={runId}>
      <RunSummary runId={runId} generation={generation} />
      <RegistryStatus runId={runId} />
      <div className="actions">
        <button
          type="button"
          data-testid="drop-connection"
          disabled={noDrop !== null}
          title={noDrop ?? undefined}
          onClick={act(async () => {
            const { dropped } = await demoApi.dropConnections(runId);
            wireLog.note(`server dropped ${dropped} connection${dropped === 1 ? '' : 's'}`);
          })}
        >
          Drop live connection
        </button>
        <button type="button" data-testid="fresh-client" onClick={onFreshClient}>
          Reload from snapshot in a fresh client
        </button>
        <button
          type="button"
          data-testid="cancel-run"
          className="danger"
          disabled={noCancel !== null}
          title={noCancel ?? undefined}
          onClick={act(() => demoApi.cancel(runId))}
        >
          Cancel run
        </button>
        {actionError && <span className="error">{actionError}</span>}
      </div>
      {gone ? null : <RunDetails runId={runId} wireLog={wireLog} />}
    </div>
  );
}

/** The run's message, timeline, raw event log and server notes. */
function RunDetails({ runId, wireLog }: { runId: string; wireLog: WireLog }) {
  return (
    <>
      <section className="card">
        <h2>Assistant message</h2>
        <AssistantMessage runId={runId} />
      </section>
      <section className="card">
        <h2>Operation timeline</h2>
        <OperationTimeline runId={runId} />
      </section>
      <div className="columns">
        <section className="card">
          <h2>Raw event log</h2>
          <EventLog log={wireLog} />
        </section>
        <section className="card">
          <h2>Server notes</h2>
          <ServerNotes runId={runId} />
        </section>
      </div>
    </>
  );
}
