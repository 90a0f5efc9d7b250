'use client';

import {
  buildRunTimeline,
  describeGap,
  describeSpanHeading,
  describeSpanResult,
  formatElapsed,
  useRunActivity,
  useRunHistory,
  withRetryWait,
} from '@runlight/react';
import { useId, useMemo } from 'react';
import { cx } from '@/lib/runlight-ui';

export interface RunTimelineProps {
  runId: string;
  /** The list's name for screen readers and its visible caption. */
  title?: string;
  className?: string;
}

const BAR = {
  wait: 'bg-runlight-warning/70',
  stream: 'bg-runlight-busy',
  compaction: 'bg-runlight-busy/60',
  failed: 'bg-runlight-danger',
  gap: 'border border-dashed border-muted-foreground/60',
} as const;

/**
 * The run's operations as a waterfall: each model request (its wait for the provider and its
 * streaming), compaction, retry wait and gap between steps, in order, with words for every
 * result — never only a colour. The original server timestamps from the operation history, so
 * a reload draws the same picture. A focusable scroll region (Tab to it, arrows to scroll);
 * the rows are a list a screen reader walks item by item.
 *
 * @example
 * <RunTimeline runId={runId} />
 */
export function RunTimeline({ runId, title = 'Run timeline', className }: RunTimelineProps) {
  const history = useRunHistory(runId);
  const activity = useRunActivity(runId);
  const model = useMemo(
    () => withRetryWait(buildRunTimeline(history.operations), activity),
    [history.operations, activity],
  );
  const titleId = useId();
  const total = Math.max(model.endMs, 1);
  return (
    <section
      aria-labelledby={titleId}
      data-slot="runlight-run-timeline"
      className={cx('flex flex-col gap-2 text-sm text-foreground', className)}
    >
      <h3 id={titleId} className="font-medium">
        {title}
      </h3>
      {model.rows.length === 0 ? (
        <p className="text-muted-foreground">
          {history.status === 'ready'
            ? 'No operations yet'
            : history.status === 'error'
              ? 'The timeline could not be loaded'
              : 'Loading…'}
        </p>
      ) : (
        // A scroll region is reachable by keyboard (Tab to it, then arrows), axe's
        // scrollable-region-focusable; the section around it names it.
        <div
          // biome-ignore lint/a11y/noNoninteractiveTabindex: a scroll region must take focus
          tabIndex={0}
          className="max-h-96 overflow-auto rounded-md focus-visible:outline-none focus-visible:ring-[3px] focus-visible:ring-ring/50"
        >
          <ol className="flex flex-col divide-y divide-border">
            {model.rows.map((row) => {
              if (row.type === 'gap') {
                const words = describeGap(row.gap);
                return (
                  <li key={row.gap.id} className="grid grid-cols-[1fr_auto] gap-x-3 gap-y-1 py-2">
                    <span>{words.heading}</span>
                    <span className="tabular-nums text-muted-foreground">
                      {row.gap.inFlight ? '' : formatElapsed(row.gap.durationMs)}
                    </span>
                    <span className="text-muted-foreground">{words.result}</span>
                    <Bar
                      start={row.gap.startMs}
                      length={row.gap.durationMs}
                      total={total}
                      kind="gap"
                    />
                  </li>
                );
              }
              const span = row.span;
              const failed = span.phase === 'failed';
              return (
                <li key={span.id} className="grid grid-cols-[1fr_auto] gap-x-3 gap-y-1 py-2">
                  <span>
                    {describeSpanHeading(span)}
                    {span.step === null ? null : (
                      <span className="text-muted-foreground"> · step {span.step + 1}</span>
                    )}
                  </span>
                  <span className="tabular-nums text-muted-foreground">
                    {span.totalMs === null ? '' : formatElapsed(span.totalMs)}
                  </span>
                  <span className={failed ? 'text-runlight-danger' : 'text-muted-foreground'}>
                    {describeSpanResult(span, { activity })}
                  </span>
                  <span aria-hidden="true" className="relative h-2 w-40 self-center">
                    {span.kind === 'compaction' ? (
                      <Segment
                        start={span.startMs}
                        length={span.totalMs ?? 0}
                        total={total}
                        className={BAR.compaction}
                      />
                    ) : (
                      <>
                        <Segment
                          start={span.startMs}
                          length={span.waitMs ?? 0}
                          total={total}
                          className={failed ? BAR.failed : BAR.wait}
                        />
                        <Segment
                          start={span.startMs + (span.waitMs ?? 0)}
                          length={span.streamMs ?? 0}
                          total={total}
                          className={BAR.stream}
                        />
                      </>
                    )}
                  </span>
                </li>
              );
            })}
          </ol>
        </div>
      )}
    </section>
  );
}

function Bar({
  start,
  length,
  total,
  kind,
}: {
  start: number;
  length: number;
  total: number;
  kind: keyof typeof BAR;
}) {
  return (
    <span aria-hidden="true" className="relative h-2 w-40 self-center">
      <Segment start={start} length={length} total={total} className={BAR[kind]} />
    </span>
  );
}

function Segment({
  start,
  length,
  total,
  className,
}: {
  start: number;
  length: number;
  total: number;
  className: string;
}) {
  return (
    <span
      className={cx('absolute inset-y-0 min-w-0.5 rounded-sm', className)}
      style={{ left: `${(100 * start) / total}%`, width: `${(100 * length) / total}%` }}
    />
  );
}
