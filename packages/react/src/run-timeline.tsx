import { type HTMLAttributes, type ReactNode, useMemo } from 'react';
import { renderAsChild } from './as-child';
import { buildRunTimeline, type RunTimelineModel } from './build-run-timeline';
import { formatElapsed } from './format-elapsed';
import { RunlightStyle } from './operation-indicator';
import { TimelineTable } from './timeline-table';
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

/**
 * A waterfall of a run's operations — compaction, provider wait (started → first output),
 * streaming (first output → end), the gaps between them (tools, approvals, other work), failed
 * and retried attempts — with durations from the original server timestamps and a bar that
 * grows while an operation is in flight. The picture is `aria-hidden`; a table under it holds
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
