import { useEffect, useState } from 'react';
import { type DemoNote, demoApi } from './demo-api-client';
import { formatClock } from './format-time';

/**
 * Facts the server knows that are not part of the run record — e.g. that worker-a's local
 * execution ended `ownership_lost` after worker-b took the run over. Polled once a second.
 */
export function ServerNotes({ runId }: { runId: string }) {
  const [notes, setNotes] = useState<readonly DemoNote[]>([]);
  useEffect(() => {
    let active = true;
    const load = () =>
      demoApi.runInfo(runId).then(
        (info) => active && setNotes(info.notes),
        () => {},
      );
    void load();
    const timer = setInterval(load, 1000);
    return () => {
      active = false;
      clearInterval(timer);
    };
  }, [runId]);
  if (notes.length === 0) return <p className="hint">Nothing beyond the run record.</p>;
  return (
    <ul className="notes" data-testid="server-notes">
      {notes.map((note) => (
        <li key={`${note.at}:${note.text}`}>
          <time>{formatClock(note.at)}</time> {note.text}
        </li>
      ))}
    </ul>
  );
}
