import type { RunState } from '@runlight/client';
import {
  OperationIndicator,
  RunStatus,
  useElapsed,
  useRun,
  useRunActivity,
  useRunConnection,
  useRunStatus,
} from '@runlight/react';
import { formatClock } from './format-time';

const selectRun = (state: RunState) => state.run;

/** The status line: `RunStatus`, the activity with its elapsed time, connection and record. */
export function RunSummary({ runId, generation }: { runId: string; generation: number }) {
  const activity = useRunActivity(runId);
  const elapsed = useElapsed(activity.since, { runId });
  const connection = useRunConnection(runId);
  const run = useRun(runId, { select: selectRun });
  const { loadFailure } = useRunStatus(runId);
  return (
    <section className="card summary">
      <div className="summary-main">
        <div className={`status status-${activity.kind}`} data-testid="run-status">
          <RunStatus runId={runId} />
        </div>
        <dl className="facts">
          <div>
            <dt>Activity</dt>
            <dd data-testid="activity" data-kind={activity.kind}>
              {activity.kind}
            </dd>
          </div>
          <div>
            <dt>Since</dt>
            <dd data-testid="since">{formatClock(activity.since)}</dd>
          </div>
          <div>
            <dt>Elapsed</dt>
            <dd data-testid="elapsed" data-ms={elapsed ?? ''}>
              {elapsed === null ? '—' : `${(elapsed / 1000).toFixed(1)} s`}
            </dd>
          </div>
          {activity.failure && (
            <div>
              <dt>Failure</dt>
              <dd data-testid="failure-code">{activity.failure.code}</dd>
            </div>
          )}
          <div>
            <dt>Connection</dt>
            <dd>
              <span
                className={`badge badge-${connection.state}`}
                data-testid="connection"
                data-state={connection.state}
              >
                {connection.state}
              </span>
            </dd>
          </div>
        </dl>
      </div>
      {/* The status above says what happened; this says why, in the playground's terms. */}
      {loadFailure === 'not-found' ? (
        <p className="error" data-testid="connection-error">
          The playground keeps runs in memory, so a restarted server starts empty. Pick a scenario.
        </p>
      ) : connection.error && connection.error.kind !== 'run-not-found' ? (
        <p className="error" data-testid="connection-error">
          {connection.error.message}
        </p>
      ) : null}
      <dl className="facts small">
        <div>
          <dt>Run</dt>
          <dd data-testid="run-id">
            <OperationIndicator runId={runId} /> {runId}
          </dd>
        </div>
        <div>
          <dt>Status</dt>
          <dd data-testid="run-record-status">{run?.status ?? '—'}</dd>
        </div>
        <div>
          <dt>Owner</dt>
          <dd data-testid="owner">{run?.owner ?? '—'}</dd>
        </div>
        <div>
          <dt>Fencing token</dt>
          <dd>{run?.fencingToken ?? '—'}</dd>
        </div>
        <div>
          <dt>Revision</dt>
          <dd data-testid="revision">{run?.revision ?? '—'}</dd>
        </div>
        <div>
          <dt>Client</dt>
          <dd data-testid="client-generation">#{generation + 1}</dd>
        </div>
      </dl>
    </section>
  );
}
