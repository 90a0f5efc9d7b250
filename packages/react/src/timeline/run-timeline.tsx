import {
  buildRunTimeline,
  formatElapsed,
  type RunStatusLabelsInput,
  type RunTimelineModel,
  resolveRunStatusLabels,
  withRetryWait,
} from '@runlight/client';
import { type HTMLAttributes, type ReactNode, useMemo } from 'react';
import { useElapsed } from '../elapsed/use-elapsed';
import { useRunActivity } from '../hooks/use-run-activity';
import { useRunHistory } from '../hooks/use-run-history';
import { runlightTimelineCss } from '../provider/runlight-css';
import { renderAsChild } from '../status/as-child';
import { RunlightStyle } from '../status/operation-indicator';
import { useRecovers } from '../status/use-run-status';
import { TimelineTable } from './timeline-table';
import { TraceLink } from './trace-link';

export type RunTimelineRender = (model: RunTimelineModel, liveMs: number | null) => ReactNode;

export interface RunTimelineProps extends Omit<HTMLAttributes<HTMLElement>, 'children'> {
  runId: string;
  /** How durations are written; default `formatElapsed`. */
  formatDuration?: (ms: number) => string;
  /** Texts to replace (i18n), the same ones `RunStatus` takes: both word a moment alike. */
  labels?: RunStatusLabelsInput;
  /** Whether anything recovers a stalled run; default `RunlightProvider`'s `recovers`. */
  recovers?: boolean;
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
  /**
   * A link to the run's trace in your tracing UI, e.g.
   * `"https://jaeger.example.com/trace/{traceId}"` (`{traceId}`, `{spanId}`, `{runId}`): shown
   * when the run has a trace (the runtime's `telemetry` was on when it was created).
   */
  traceUrl?: string;
  /** The trace link's text. Default `'View trace'`. */
  traceLabel?: string;
}

/**
 * A waterfall of a run's operations — compaction, provider wait (started → first output),
 * streaming (first output → end), the gaps between them (tools, approvals, other work; the
 * wait before a retry as a retry wait), failed and retried attempts — in the words `RunStatus`
 * uses for the same moment (`labels`; the words are `@runlight/client`'s), with durations from
 * the original server timestamps and a bar that grows while an operation is in flight. The picture is `aria-hidden`; a table under it holds
 * every fact as text. Rows are memoised: a tick re-renders the running row and the scale only.
 * The table scrolls in its own box (default `max-height: 28em`, `--rl-max-height`) and draws
 * only the rows in view, so a long run stays within a frame; `aria-rowcount` and `aria-rowindex`
 * keep every row announced in its place.
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
  labels,
  recovers: ownRecovers,
  children,
  traceUrl,
  traceLabel = 'View trace',
  ...rest
}: RunTimelineProps) {
  const history = useRunHistory(runId);
  const activity = useRunActivity(runId);
  const resolved = useMemo(() => resolveRunStatusLabels(labels), [labels]);
  const recovers = useRecovers(ownRecovers);
  const built = useMemo(() => buildRunTimeline(history.operations), [history.operations]);
  // The wait before a retry is a moment of the run too: the timeline shows it as the status does.
  const model = useMemo(() => withRetryWait(built, activity), [built, activity]);
  const running = model.inFlight;
  const waiting = model.rows.at(-1);
  const liveGap = waiting?.type === 'gap' && waiting.gap.inFlight ? waiting.gap : null;
  const liveMs = useElapsed(running?.startedAt ?? liveGap?.startedAt ?? null, { runId });
  const liveStart = running?.startMs ?? liveGap?.startMs ?? null;
  const liveEnd = liveStart !== null && liveMs !== null ? liveStart + liveMs : 0;
  const totalMs = Math.max(1, model.endMs, liveEnd);
  const props = {
    ...rest,
    'data-runlight': 'timeline',
    'data-status': history.status,
    style: { ...rest.style, '--rl-total': totalMs } as HTMLAttributes<HTMLElement>['style'],
  };
  const style = unstyled ? null : (
    <>
      <RunlightStyle />
      <style href="runlight-timeline" precedence="default">
        {runlightTimelineCss}
      </style>
    </>
  );
  const link = traceUrl ? <TraceLink runId={runId} template={traceUrl} label={traceLabel} /> : null;
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
      activity={activity}
      labels={resolved}
      recovers={recovers}
    />
  );
  if (asChild) {
    return (
      <>
        {style}
        {renderAsChild(
          children as ReactNode,
          props,
          <>
            {table}
            {link}
          </>,
        )}
      </>
    );
  }
  return (
    <>
      {style}
      <div {...props}>
        {table}
        {link}
      </div>
    </>
  );
}
