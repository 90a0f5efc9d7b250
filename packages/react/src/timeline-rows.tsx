import { memo, type Ref } from 'react';
import type { TimelineGap, TimelineSpan } from './build-run-timeline';
import { useElapsed } from './use-elapsed';

const RESULT: Record<TimelineSpan['phase'], string> = {
  started: 'in progress',
  'first-output': 'streaming',
  completed: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
};

/** The words of a span's result: phase, outcome, failure reason and retry — never only colour. */
export function describeSpanResult(span: TimelineSpan): string {
  const words = [RESULT[span.phase]];
  if (span.outcome === 'not_needed') words.push('(not needed)');
  if (span.outcome === 'compacted') words.push('(compacted)');
  if (span.failureReason !== null) words.push(`(${span.failureReason.replace('_', ' ')})`);
  if (span.retried) words.push('— retried');
  return words.join(' ');
}

/** What every row of the table gets from the window it is drawn in. */
export interface TimelineRowPlace {
  /** The row's index among the table's rows (the virtualizer's `data-index`). */
  index: number;
  /** Measures the drawn row (stable: the virtualizer's `measureElement`). */
  measure: Ref<HTMLTableRowElement>;
  format: (ms: number) => string;
}

/** `aria-rowindex` is 1-based and the header row is 1. */
const rowIndex = (index: number) => index + 2;

/** The row in flight: it alone follows the clock. */
export function LiveSpanRow({
  span,
  runId,
  ...place
}: TimelineRowPlace & { span: TimelineSpan; runId: string }) {
  const liveMs = useElapsed(span.startedAt, { runId });
  return <SpanRow span={span} liveMs={liveMs} {...place} />;
}

const bar = (part: string, startMs: number, lengthMs: number) => (
  <span
    key={part}
    data-runlight-part={part}
    style={{ '--rl-start': startMs, '--rl-length': lengthMs } as object}
  />
);

/**
 * One operation. Memoised on its span object (`buildRunTimeline` keeps the object of an
 * unchanged operation), so a live event or a tick re-renders the changed row only.
 */
export const SpanRow = memo(function SpanRow({
  span,
  liveMs,
  index,
  measure,
  format,
}: TimelineRowPlace & { span: TimelineSpan; liveMs: number | null }) {
  const label =
    span.kind === 'compaction'
      ? 'Compaction'
      : span.attempt !== null && span.attempt > 1
        ? `Model request, attempt ${span.attempt}`
        : 'Model request';
  // In flight: the running part grows with the clock (the other parts are fixed).
  const waiting = span.inFlight && span.firstOutputAt === null;
  const waitMs = span.waitMs ?? (waiting ? liveMs : null);
  const streamStart = span.waitMs ?? 0;
  const streamMs =
    span.streamMs ??
    (span.inFlight && span.firstOutputAt !== null && liveMs !== null
      ? Math.max(0, liveMs - streamStart)
      : null);
  const totalMs = span.totalMs ?? liveMs;
  const dash = (value: number | null, running: boolean) =>
    value === null ? '—' : running ? `${format(value)} so far` : format(value);
  return (
    <tr
      ref={measure}
      data-index={index}
      aria-rowindex={rowIndex(index)}
      data-runlight-row="operation"
      data-operation-id={span.id}
      data-kind={span.kind}
      data-phase={span.phase}
      data-step={span.step ?? undefined}
      data-attempt={span.attempt ?? undefined}
      data-started-at={span.startedAt}
      data-first-output-at={span.firstOutputAt ?? undefined}
      data-ended-at={span.endedAt ?? undefined}
      data-in-flight={span.inFlight ? '' : undefined}
      data-retried={span.retried ? '' : undefined}
    >
      <th scope="row">{label}</th>
      <td>{span.step ?? '—'}</td>
      <td data-runlight-part="result">{describeSpanResult(span)}</td>
      <td>+{format(span.startMs)}</td>
      <td data-runlight-part="wait-text">
        {span.kind === 'compaction' ? '—' : dash(waitMs, waiting)}
      </td>
      <td data-runlight-part="stream-text">
        {dash(streamMs, span.inFlight && span.firstOutputAt !== null)}
      </td>
      <td data-runlight-part="total-text">{dash(totalMs, span.inFlight)}</td>
      <td aria-hidden="true" data-runlight-part="bar">
        {span.kind === 'compaction'
          ? bar('compaction', span.startMs, totalMs ?? 0)
          : [
              waitMs === null ? null : bar('wait', span.startMs, waitMs),
              streamMs === null ? null : bar('stream', span.startMs + streamStart, streamMs),
            ]}
      </td>
    </tr>
  );
});

/** The time between two operations (tools, approvals, other work). Memoised like `SpanRow`. */
export const GapRow = memo(function GapRow({
  gap,
  index,
  measure,
  format,
}: TimelineRowPlace & { gap: TimelineGap }) {
  return (
    <tr ref={measure} data-index={index} aria-rowindex={rowIndex(index)} data-runlight-row="gap">
      <th scope="row">Between operations</th>
      <td>—</td>
      <td>tools, approvals or other work</td>
      <td>+{format(gap.startMs)}</td>
      <td>—</td>
      <td>—</td>
      <td>{format(gap.durationMs)}</td>
      <td aria-hidden="true" data-runlight-part="bar">
        {bar('gap', gap.startMs, gap.durationMs)}
      </td>
    </tr>
  );
});
