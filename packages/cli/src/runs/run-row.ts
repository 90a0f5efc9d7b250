import {
  type ActivityKind,
  formatElapsed,
  type RunState,
  selectElapsedMs,
  selectRunStatus,
} from '@runlight/client';
import { statusWords } from '../tail/phase-tracker';

/** One run of the `runs` table, as it reads now. */
export interface RunRow {
  readonly runId: string;
  readonly activity: ActivityKind | 'unreadable';
  readonly text: string;
  /** The time shown: since the activity began (ticking), or the run's whole time once ended. */
  readonly elapsedMs: number | null;
}

/** The row of a run from its state (the status words of `tail` and `RunStatus`). */
export function runRow(state: RunState, options: { recovers: boolean; now: number }): RunRow {
  const view = selectRunStatus(state);
  const { text } = statusWords(view.activity, {
    clockOffsetMs: state.clockOffsetMs,
    recovers: options.recovers,
    now: options.now,
  });
  let elapsedMs: number | null = null;
  if (view.since !== undefined && view.until !== undefined) {
    elapsedMs = Math.max(0, Date.parse(view.until) - Date.parse(view.since));
  } else if (view.since !== undefined) {
    elapsedMs = selectElapsedMs(view.since, state, options.now);
  }
  return { runId: state.runId, activity: view.activity.kind, text, elapsedMs };
}

/** The table: a header, one line per run, columns as wide as their widest cell. */
export function renderTable(
  rows: readonly RunRow[],
  paint: (row: RunRow, text: string) => string,
): string[] {
  const idWidth = Math.max(3, ...rows.map((row) => row.runId.length));
  const textWidth = Math.max(6, ...rows.map((row) => row.text.length));
  const lines = [`${'RUN'.padEnd(idWidth)}  ${'STATUS'.padEnd(textWidth)}  TIME`];
  for (const row of rows) {
    const time = row.elapsedMs === null ? '' : formatElapsed(row.elapsedMs);
    lines.push(`${row.runId.padEnd(idWidth)}  ${paint(row, row.text.padEnd(textWidth))}  ${time}`);
  }
  return lines;
}
