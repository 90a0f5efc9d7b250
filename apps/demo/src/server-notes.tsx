import { useEffect, useState } from 'react';
import { DemoApiError, type DemoNote, demoApi } from './demo-api-client';
import { formatClock } from './format-time';

/**
 * Facts the server knows that are not part of the run record — e.g. that worker-a's local
 * execution ended `ownership_lost` after worker-b took the run over. Polled once a second; a
 * run the server did not start from a scenario (one opened from `/runs`) has none and answers
 * 404, so the polling stops there.
 */
export function ServerNotes({ runId }: { runId: string }) {
  const [notes, setNotes] = useState<readonly DemoNote[]>([]);
  const [none, setNone] = useState(false);
  useEffect(() => {
    let active = true;
    setNone(false);
    const load = () =>
      demoApi.runInfo(runId).then(
        (info) => active && setNotes(info.notes),
        (cause: unknown) => {
          if (!(cause instanceof DemoApiError && cause.status === 404)) return;
          clearInterval(timer);
          if (active) setNone(true);
        },
      );
    const timer = setInterval(load, 1000);
    void load();
    return () => {
      active = false;
      clearInterval(timer);
    };
  }, [runId]);
  if (none) {
    return (
      <p className="hint" data-testid="no-server-notes">
        Not a scenario run: the server keeps no notes on it.
      </p>
    );
  }
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
