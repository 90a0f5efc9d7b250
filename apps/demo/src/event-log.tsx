import { useSyncExternalStore } from 'react';
import { summariseEvent } from './event-summary';
import type { WireLog } from './wire-log';

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
                <td>{summariseEvent(entry)}</td>
              </tr>
            ))}
        </tbody>
      </table>
    </div>
  );
}
