import { type HTMLAttributes, memo, type ReactNode, useMemo } from 'react';
import { renderAsChild } from './as-child';
import {
  buildRunTimeline,
  type RunTimelineModel,
  type TimelineGap,
  type TimelineSpan,
} from './build-run-timeline';
import { formatElapsed } from './format-elapsed';
import { RunlightStyle } from './operation-indicator';
import { useElapsed } from './use-elapsed';
import { useRunHistory } from './use-run-history';

export type RunTimelineRender = (model: RunTimelineModel, liveMs: number | null) => ReactNode;

export interface RunTimelineProps extends Omit<HTMLAttributes<HTMLElement>, 'children'> {
  runId: string;
  /** How durations are written; default `formatElapsed`. */
  formatDuration?: (ms: number) => string;
  /** Leave out the default styles; the data attributes stay for your own. */
  unstyled?: boolean;
  /** Render as the single child element (it receives the table as its content). */
  asChild?: boolean;
  /**
   * Headless: `(model, liveMs)` — the waterfall as data, and how long the operation in flight
   * has run (ticking), or a child element with `asChild`.
   */
  children?: ReactNode | RunTimelineRender;
  /** The table's caption (visible to screen readers; style it away if you like). */
  caption?: string;
}

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

/**
 * A waterfall of a run's operations — compaction, provider wait (started → first output),
 * streaming (first output → end), the gaps between them (tools, approvals, other work), failed
 * and retried attempts — with durations from the original server timestamps and a bar that
 * grows while an operation is in flight. The picture is `aria-hidden`; a table under it holds
 * every fact as text. Rows are memoised: a tick re-renders the running row and the scale only.
 *
 * @example
 * <RunTimeline runId={runId} />
 * <RunTimeline runId={runId}>{(model) => <MyChart spans={model.spans} />}</RunTimeline>
 */
export function RunTimeline({
  runId,
  formatDuration = formatElapsed,
  unstyled = false,
  asChild = false,
  caption = 'Where the run spent its time',
  children,
  ...rest
}: RunTimelineProps) {
  const history = useRunHistory(runId);
  const model = useMemo(() => buildRunTimeline(history.operations), [history.operations]);
  const running = model.inFlight;
  const liveMs = useElapsed(running?.startedAt ?? null, { runId });
  const liveEnd = running !== null && liveMs !== null ? running.startMs + liveMs : 0;
  const totalMs = Math.max(1, model.endMs, liveEnd);
  const props = {
    ...rest,
    'data-runlight': 'timeline',
    'data-status': history.status,
    style: { ...rest.style, '--rl-total': totalMs } as HTMLAttributes<HTMLElement>['style'],
  };
  const style = unstyled ? null : <RunlightStyle />;
  if (typeof children === 'function') {
    return (
      <>
        {style}
        <div {...props}>{children(model, liveMs)}</div>
      </>
    );
  }
  const table = (
    <TimelineTable
      model={model}
      runId={runId}
      format={formatDuration}
      caption={caption}
      loading={history.status === 'loading' && model.rows.length === 0}
    />
  );
  if (asChild) {
    return (
      <>
        {style}
        {renderAsChild(children as ReactNode, props, table)}
      </>
    );
  }
  return (
    <>
      {style}
      <div {...props}>{table}</div>
    </>
  );
}

/** Memoised: a clock tick re-renders the scale and the running row, not the table. */
const TimelineTable = memo(function TimelineTable({
  model,
  runId,
  format,
  caption,
  loading,
}: {
  model: RunTimelineModel;
  runId: string;
  format: (ms: number) => string;
  caption: string;
  loading: boolean;
}) {
  return (
    <table data-runlight-part="table">
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Operation</th>
          <th scope="col">Step</th>
          <th scope="col">Result</th>
          <th scope="col">Starts at</th>
          <th scope="col">Provider wait</th>
          <th scope="col">Streaming</th>
          <th scope="col">Total</th>
          <td aria-hidden="true" data-runlight-part="bar-head" />
        </tr>
      </thead>
      <tbody>
        {loading ? (
          <tr>
            <td colSpan={8}>Loading the history…</td>
          </tr>
        ) : null}
        {model.rows.map((row) =>
          row.type === 'gap' ? (
            <GapRow key={row.gap.id} gap={row.gap} format={format} />
          ) : row.span.inFlight ? (
            <LiveSpanRow key={row.span.id} span={row.span} format={format} runId={runId} />
          ) : (
            <SpanRow key={row.span.id} span={row.span} format={format} liveMs={null} />
          ),
        )}
      </tbody>
    </table>
  );
});

/** The row in flight: it alone follows the clock. */
function LiveSpanRow({
  span,
  format,
  runId,
}: {
  span: TimelineSpan;
  format: (ms: number) => string;
  runId: string;
}) {
  const liveMs = useElapsed(span.startedAt, { runId });
  return <SpanRow span={span} format={format} liveMs={liveMs} />;
}

const bar = (part: string, startMs: number, lengthMs: number, key?: string) => (
  <span
    key={key ?? part}
    data-runlight-part={part}
    style={{ '--rl-start': startMs, '--rl-length': lengthMs } as object}
  />
);

const SpanRow = memo(function SpanRow({
  span,
  format,
  liveMs,
}: {
  span: TimelineSpan;
  format: (ms: number) => string;
  liveMs: number | null;
}) {
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

const GapRow = memo(function GapRow({
  gap,
  format,
}: {
  gap: TimelineGap;
  format: (ms: number) => string;
}) {
  return (
    <tr data-runlight-row="gap">
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
