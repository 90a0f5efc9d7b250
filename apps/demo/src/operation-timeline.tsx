import type { RunStore } from '@runlight/client';
import { useSyncExternalStore } from 'react';
import { formatClock, formatOffset } from './format-time';
import { OperationHistory } from './operation-history';
import type { WireLog } from './wire-log';

/** Each `lastOperation` this client held, with its original server timestamps. */
export function OperationTimeline({ store, wireLog }: { store: RunStore; wireLog: WireLog }) {
  const history = OperationHistory.of(store, wireLog);
  const entries = useSyncExternalStore(history.subscribe, history.getSnapshot);
  if (entries.length === 0) return <p className="hint">No operation yet.</p>;
  return (
    <ol className="timeline" data-testid="timeline">
      {entries.map(({ key, operation }) => (
        <li
          key={key}
          className={`timeline-entry phase-${operation.phase}`}
          data-testid="timeline-entry"
          data-kind={operation.kind}
          data-phase={operation.phase}
          data-started-at={operation.startedAt}
        >
          <div className="timeline-head">
            <strong>{operation.kind}</strong>
            {operation.step !== undefined && <span> · step {operation.step}</span>}
            <span className={`phase phase-${operation.phase}`}>{operation.phase}</span>
            {operation.outcome && (
              <span className="outcome" data-testid="outcome">
                {operation.outcome}
              </span>
            )}
          </div>
          <div className="timeline-times">
            <span>started {formatClock(operation.startedAt)}</span>
            {operation.firstOutputAt && (
              <span>
                first output {formatClock(operation.firstOutputAt)}{' '}
                <em>{formatOffset(operation.startedAt, operation.firstOutputAt)}</em>
              </span>
            )}
            {operation.endedAt && (
              <span>
                ended {formatClock(operation.endedAt)}{' '}
                <em>{formatOffset(operation.startedAt, operation.endedAt)}</em>
              </span>
            )}
          </div>
          <code className="operation-id">{operation.id}</code>
        </li>
      ))}
    </ol>
  );
}
