import type { TimelineGap, TimelineSpan } from '@runlight/client';
import { memo, type Ref } from 'react';
import { useElapsed } from '../elapsed/use-elapsed';

/** What every row of the table gets from the window it is drawn in. */
export interface TimelineRowPlace {
  /** The row's index among the table's rows (the virtualizer's `data-index`). */
  index: number;
  /** Measures the drawn row (stable: the virtualizer's `measureElement`). */
  measure: Ref<HTMLTableRowElement>;
  format: (ms: number) => string;
  /** A retry's time since the request's first attempt, in words (`labels.sinceFirstAttempt`). */
  sinceFirstAttempt: (duration: string) => string;
}

/**
 * A row's words (`describeSpanResult`, … of `@runlight/client`), computed by the table so
 * unchanged rows stay memoised.
 */
export interface RowWords {
  heading: string;
  result: string;
}

/** `aria-rowindex` is 1-based and the header row is 1. */
const rowIndex = (index: number) => index + 2;

const since = (from: string, to: string) => Math.max(0, Date.parse(to) - Date.parse(from) || 0);

const dashed =
  (format: (ms: number) => string) =>
  (value: number | null, running: boolean): string =>
    value === null ? '—' : running ? `${format(value)} so far` : format(value);

/**
 * A retry's time since the request's first attempt — what the status counts — after its result,
 * named so that it never reads as the attempt's own total beside it:
 * `completed · 4.0 s since attempt 1 began` (Total: 2.0 s).
 */
const requestTime = (words: (duration: string) => string, request: string | null) =>
  request === null ? null : <span data-runlight-part="request-time"> · {words(request)}</span>;

/** The row in flight: it alone follows the clock. */
export function LiveSpanRow({
  span,
  runId,
  ...place
}: TimelineRowPlace & RowWords & { span: TimelineSpan; runId: string }) {
  const liveMs = useElapsed(span.startedAt, { runId });
  // Counted as the status counts a retry: from the request's first attempt, on the same clock.
  const requestMs = useElapsed(span.requestStartedAt, { runId });
  return <SpanRow span={span} liveMs={liveMs} liveRequestMs={requestMs} {...place} />;
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
 * unchanged operation) and its words, so a live event or a tick re-renders the changed row only.
 */
// `@__PURE__`: a page that never renders the timeline drops it and the virtualizer
// (scripts/consumers/bundle-size).
export const SpanRow = /* @__PURE__ */ memo(function SpanRow({
  span,
  liveMs,
  liveRequestMs = null,
  heading,
  result,
  index,
  measure,
  format,
  sinceFirstAttempt,
}: TimelineRowPlace &
  RowWords & { span: TimelineSpan; liveMs: number | null; liveRequestMs?: number | null }) {
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
  const dash = dashed(format);
  const requestMs =
    span.requestStartedAt === null
      ? null
      : span.endedAt !== null
        ? since(span.requestStartedAt, span.endedAt)
        : liveRequestMs;
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
      <th scope="row">{heading}</th>
      <td>{span.step ?? '—'}</td>
      <td data-runlight-part="result">
        {result}
        {requestTime(sinceFirstAttempt, requestMs === null ? null : format(requestMs))}
      </td>
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

/** A wait going on now (a retry wait): it follows the clock like the operation in flight. */
export function LiveGapRow({
  gap,
  runId,
  requestStartedAt,
  ...place
}: TimelineRowPlace & RowWords & { gap: TimelineGap; runId: string; requestStartedAt: string }) {
  const liveMs = useElapsed(gap.startedAt, { runId });
  const requestMs = useElapsed(requestStartedAt, { runId });
  return <GapRow gap={gap} liveMs={liveMs} liveRequestMs={requestMs} {...place} />;
}

/**
 * The time between two operations: tools, approvals, other work — or the wait before a retry,
 * with the request's time since its first attempt. Memoised like `SpanRow`.
 */
export const GapRow = /* @__PURE__ */ memo(function GapRow({
  gap,
  liveMs = null,
  liveRequestMs = null,
  heading,
  result,
  index,
  measure,
  format,
  sinceFirstAttempt,
}: TimelineRowPlace &
  RowWords & { gap: TimelineGap; liveMs?: number | null; liveRequestMs?: number | null }) {
  const dash = dashed(format);
  const durationMs = gap.inFlight ? liveMs : gap.durationMs;
  return (
    <tr
      ref={measure}
      data-index={index}
      aria-rowindex={rowIndex(index)}
      data-runlight-row="gap"
      data-retry-attempt={gap.retryAttempt ?? undefined}
      data-in-flight={gap.inFlight ? '' : undefined}
    >
      <th scope="row">{heading}</th>
      <td>—</td>
      <td data-runlight-part="result">
        {result}
        {requestTime(
          sinceFirstAttempt,
          gap.inFlight && liveRequestMs !== null ? format(liveRequestMs) : null,
        )}
      </td>
      <td>+{format(gap.startMs)}</td>
      <td>—</td>
      <td>—</td>
      <td data-runlight-part="total-text">{dash(durationMs, gap.inFlight)}</td>
      <td aria-hidden="true" data-runlight-part="bar">
        {bar('gap', gap.startMs, durationMs ?? 0)}
      </td>
    </tr>
  );
});
