import { useSyncExternalStore } from 'react';
import type { WireEntry, WireLog } from './wire-log';

function summarise(entry: WireEntry): string {
  if (entry.event === 'client') return entry.data;
  try {
    const event = JSON.parse(entry.data) as Record<string, unknown> & {
      chunk?: Record<string, unknown>;
      operation?: Record<string, unknown>;
    };
    switch (event.type) {
      case 'run-delta': {
        const chunk = event.chunk ?? {};
        const text = chunk.delta ?? chunk.inputTextDelta;
        return `${String(chunk.type)}${typeof text === 'string' ? ` ${JSON.stringify(text)}` : ''}`;
      }
      case 'run-operation':
        return `${String(event.operation?.kind)} ${String(event.operation?.phase)}`;
      case 'run-status':
        return `${String(event.change)} → ${String(event.status)}${event.owner ? ` (${String(event.owner)})` : ''}`;
      case 'assistant-checkpoint':
        return 'assistant message checkpointed';
      case 'assistant-append':
        return `assistant +${Array.isArray(event.chunks) ? event.chunks.length : 0} chunk(s)`;
      default:
        return entry.data.slice(0, 120);
    }
  } catch {
    return entry.data.slice(0, 120);
  }
}

/** The messages this client's event streams received, newest first. */
export function EventLog({ log }: { log: WireLog }) {
  const entries = useSyncExternalStore(log.subscribe, log.getSnapshot);
  if (entries.length === 0) return <p className="hint">No events yet.</p>;
  return (
    <div className="event-log" data-testid="event-log">
      <table>
        <thead>
          <tr>
            <th>id (cursor)</th>
            <th>event</th>
            <th>what</th>
          </tr>
        </thead>
        <tbody>
          {entries
            .slice()
            .reverse()
            .map((entry) => (
              <tr key={entry.index} className={`event-${entry.event}`} title={entry.data}>
                <td>
                  <code>{entry.id ?? ''}</code>
                </td>
                <td>{entry.event}</td>
                <td>{summarise(entry)}</td>
              </tr>
            ))}
        </tbody>
      </table>
    </div>
  );
}
