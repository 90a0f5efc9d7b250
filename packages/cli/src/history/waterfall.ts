import {
  type Activity,
  defaultRunStatusLabels,
  describeGap,
  describeSpanHeading,
  describeSpanResult,
  formatElapsed,
  type RunTimelineModel,
  type TimelineRow,
} from '@runlight/client';

/** One row of the waterfall, worded (`--json` prints these). */
export interface WaterfallRow {
  readonly type: 'operation' | 'gap';
  readonly id: string;
  readonly heading: string;
  readonly result: string;
  /** ms from the run's first operation to the row's start. */
  readonly startMs: number;
  /** The row's length; for one in flight, up to `nowMs`. */
  readonly durationMs: number;
  /** Operations: the provider wait and the streaming (null when none). */
  readonly waitMs: number | null;
  readonly streamMs: number | null;
  readonly inFlight: boolean;
}

/**
 * The rows of a timeline in words — `describeSpanHeading`, `describeSpanResult`, `describeGap`
 * with the run's activity, as `@runlight/react`'s `RunTimeline` words them. `nowMs` (ms from
 * the origin, on the server's clock) is where rows in flight end.
 */
export function waterfallRows(
  model: RunTimelineModel,
  activity: Activity,
  options: { recovers: boolean; nowMs: number },
): WaterfallRow[] {
  const labels = defaultRunStatusLabels;
  return model.rows.map((row: TimelineRow): WaterfallRow => {
    if (row.type === 'gap') {
      const { gap } = row;
      const words = describeGap(gap, labels);
      const durationMs = gap.inFlight ? Math.max(0, options.nowMs - gap.startMs) : gap.durationMs;
      return {
        type: 'gap',
        id: gap.id,
        ...words,
        startMs: gap.startMs,
        durationMs,
        waitMs: null,
        streamMs: null,
        inFlight: gap.inFlight,
      };
    }
    const { span } = row;
    const durationMs = span.totalMs ?? Math.max(0, options.nowMs - span.startMs);
    const waitMs = span.waitMs ?? (span.firstOutputAt === null ? durationMs : null);
    const streamMs =
      span.streamMs ??
      (span.firstOutputAt !== null && span.waitMs !== null
        ? Math.max(0, durationMs - span.waitMs)
        : null);
    return {
      type: 'operation',
      id: span.id,
      heading: describeSpanHeading(span, labels),
      result: describeSpanResult(span, { activity, labels, recovers: options.recovers }),
      startMs: span.startMs,
      durationMs,
      waitMs,
      streamMs,
      inFlight: span.inFlight,
    };
  });
}

const WAIT = '▒';
const STREAM = '█';
const GAP = '·';

/**
 * The waterfall as terminal lines: each row's heading, start, a bar on a common scale (`▒` the
 * provider wait, `█` streaming, `·` time between operations), its length and its result.
 * `paint` colours a bar; the characters alone tell the parts apart.
 */
export function renderWaterfall(
  rows: readonly WaterfallRow[],
  options: {
    width: number;
    paint: (part: 'wait' | 'stream' | 'gap' | 'dim', text: string) => string;
  },
): string[] {
  if (rows.length === 0) return ['No operations yet.'];
  const endMs = Math.max(1, ...rows.map((row) => row.startMs + row.durationMs));
  const headingWidth = Math.max(7, ...rows.map((row) => row.heading.length));
  const barWidth = Math.max(10, Math.min(60, options.width - headingWidth - 40));
  const cells = (ms: number) => Math.round((ms / endMs) * barWidth);
  const lines = [
    `${'OPERATION'.padEnd(headingWidth)}  ${'START'.padStart(9)}  ${''.padEnd(barWidth)}  ${'TIME'.padStart(9)}  RESULT`,
  ];
  for (const row of rows) {
    const start = Math.min(barWidth, cells(row.startMs));
    let bar: string;
    let visible: number;
    if (row.type === 'gap') {
      visible = Math.max(1, cells(row.durationMs));
      bar = options.paint('gap', GAP.repeat(visible));
    } else {
      const wait = Math.max(row.waitMs === null ? 0 : 1, cells(row.waitMs ?? 0));
      const stream = row.streamMs === null ? 0 : Math.max(1, cells(row.streamMs));
      visible = wait + stream;
      bar =
        options.paint('wait', WAIT.repeat(wait)) + options.paint('stream', STREAM.repeat(stream));
    }
    const padded = `${' '.repeat(start)}${bar}${' '.repeat(Math.max(0, barWidth - start - visible))}`;
    const time = `${formatElapsed(row.durationMs)}${row.inFlight ? '…' : ''}`;
    lines.push(
      `${row.heading.padEnd(headingWidth)}  ${options.paint('dim', `+${formatElapsed(row.startMs)}`.padStart(9))}  ${padded}  ${time.padStart(9)}  ${row.result}`,
    );
  }
  lines.push(
    options.paint(
      'dim',
      `${WAIT} waiting for the model  ${STREAM} streaming  ${GAP} between operations`,
    ),
  );
  return lines;
}
