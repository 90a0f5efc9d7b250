import type { ActivityKind, RunlightClient } from '@runlight/client';
import { useRunActivity } from '@runlight/react';
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

/** Everything about one run, all from the merged client state, plus the demo's actions. */
export function RunPanel({ runId, wireLog, generation, onFreshClient }: RunPanelProps) {
  const [actionError, setActionError] = useState<string | null>(null);
  const ended = ENDED.has(useRunActivity(runId).kind);
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
          disabled={ended}
          title={ended ? 'The run ended: its event stream is closed' : undefined}
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
          disabled={ended}
          title={ended ? 'The run ended: there is nothing to cancel' : undefined}
          onClick={act(() => demoApi.cancel(runId))}
        >
          Cancel run
        </button>
        {actionError && <span className="error">{actionError}</span>}
      </div>
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
    </div>
  );
}
