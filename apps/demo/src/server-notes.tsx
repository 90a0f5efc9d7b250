import type { RunState } from '@runlight/client';
import { isTerminalStatus } from '@runlight/protocol';
import { useRun } from '@runlight/react';
import { useEffect, useState } from 'react';
import { DemoApiError, type DemoNote, demoApi } from './demo-api-client';
import { formatClock } from './format-time';

/** How often the notes are asked for while they can still change. */
const POLL_MS = 1000;
/**
 * How long after a run's end its notes may still change: an execution that lost the run ends
 * after the run did (the lease-stolen scenario's worker-a, cut off for the short lease plus
 * 2.5 s, notes its `ownership_lost` when it is back).
 */
export const NOTES_AFTER_END_MS = 5000;

/** The server time the run ended at (its terminal commit), or `null` while it goes on. */
const selectEnd = (state: RunState) =>
  state.run !== null && isTerminalStatus(state.run.status)
    ? Date.parse(state.run.updatedAt) - (state.clockOffsetMs ?? 0)
    : null;

/**
 * Facts the server knows that are not part of the run record — e.g. that worker-a's local
 * execution ended `ownership_lost` after worker-b took the run over. Asked once a second while
 * the run goes on and for `NOTES_AFTER_END_MS` after it ended, then no more: a finished run's
 * notes stop changing. A run the server did not start from a scenario (one opened from
 * `/runs`) has none and answers 404, so the asking stops there.
 */
export function ServerNotes({ runId }: { runId: string }) {
  const [notes, setNotes] = useState<readonly DemoNote[]>([]);
  const [none, setNone] = useState(false);
  // On the client's clock: when the run ended (`null` while it runs).
  const endedAt = useRun(runId, { select: selectEnd });
  useEffect(() => {
    if (none) return;
    let active = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const askUntil = endedAt === null ? Number.POSITIVE_INFINITY : endedAt + NOTES_AFTER_END_MS;
    const next = () => {
      if (active && Date.now() < askUntil) timer = setTimeout(load, POLL_MS);
    };
    const load = () =>
      demoApi.runInfo(runId).then(
        (info) => {
          if (!active) return;
          setNotes(info.notes);
          next();
        },
        (cause: unknown) => {
          if (cause instanceof DemoApiError && cause.status === 404) {
            if (active) setNone(true);
          } else next();
        },
      );
    void load();
    return () => {
      active = false;
      clearTimeout(timer);
    };
  }, [runId, endedAt, none]);
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
