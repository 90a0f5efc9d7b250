import type { Activity, RunStatusLabels, RunTimelineModel, TimelineRow } from '@runlight/client';
import { describeGap, describeSpanHeading, describeSpanResult } from '@runlight/client';
import {
  measureElement,
  observeElementRect,
  useVirtualizer,
  type Virtualizer,
} from '@tanstack/react-virtual';
import { memo, useId, useLayoutEffect, useRef } from 'react';
import { GapRow, LiveGapRow, LiveSpanRow, SpanRow } from './timeline-rows';

/** A row's height before it is measured (one line of the default style). */
const ROW_ESTIMATE_PX = 24;
/**
 * Where the scroller has no layout — the server, jsdom, a hidden tab — it counts as this tall,
 * so the first render still draws the first rows (about 20 with the default style).
 */
const NO_LAYOUT_HEIGHT_PX = 480;
/** Rows drawn beyond each edge of the window; also covers the caption and the sticky header. */
const OVERSCAN = 10;
/** Within this distance of its end the box counts as scrolled to the end (it follows). */
const FOLLOW_SLACK_PX = 2 * ROW_ESTIMATE_PX;

const rowKey = (row: TimelineRow) => (row.type === 'gap' ? row.gap.id : row.span.id);

const measureRow = (
  element: HTMLTableRowElement,
  entry: ResizeObserverEntry | undefined,
  instance: Virtualizer<HTMLElement, HTMLTableRowElement>,
) => {
  const size = measureElement(element, entry, instance);
  return size > 0 ? size : ROW_ESTIMATE_PX;
};

const observeScroller = (
  instance: Virtualizer<HTMLElement, HTMLTableRowElement>,
  callback: (rect: { width: number; height: number }) => void,
) =>
  observeElementRect(instance, (rect) =>
    callback(rect.height > 0 ? rect : { width: rect.width, height: NO_LAYOUT_HEIGHT_PX }),
  );

/** An empty row that stands for the rows outside the window (hidden from assistive technology). */
function Spacer({ height }: { height: number }) {
  return (
    // biome-ignore lint/a11y/noAriaHiddenOnFocusable: a table row without a tabindex is not focusable
    <tr aria-hidden="true" data-runlight-row="spacer">
      <td colSpan={8} style={{ height, padding: 0 }} />
    </tr>
  );
}

/**
 * The table of the waterfall, windowed: it scrolls in its own box and draws only the rows in
 * view (plus `OVERSCAN`), so a run of 500 operations costs about what one of 50 does, on the
 * first render and on every tick — a whole table re-lays out when one of its cells changes.
 * Every row stays reachable by scrolling (the box takes keyboard focus), and `aria-rowcount` /
 * `aria-rowindex` tell assistive technology how many rows there are and where each drawn one
 * sits. Without a bounded height (e.g. `unstyled` and no `max-height` of your own) the box is as
 * tall as the table and every row is drawn.
 *
 * While the run is live the box follows its end, as a log does — the operation in flight is the
 * last row — until the reader scrolls away from the end; scrolling back to it follows again. A
 * finished run opens at its first operation.
 *
 * Memoised: a clock tick re-renders the scale and the running row, not the table.
 */
// `@__PURE__`: a page that never renders the timeline drops it and the virtualizer
// (scripts/consumers/bundle-size).
export const TimelineTable = /* @__PURE__ */ memo(function TimelineTable({
  model,
  runId,
  format,
  caption,
  loading,
  activity,
  labels,
  recovers,
}: {
  model: RunTimelineModel;
  runId: string;
  format: (ms: number) => string;
  caption: string;
  loading: boolean;
  /** The run's activity: the rows word the moment as the status does (`describeSpanResult`). */
  activity: Activity;
  labels: RunStatusLabels;
  /** Whether anything recovers a stalled run (the in-flight row reads as the status). */
  recovers: boolean;
}) {
  const scroller = useRef<HTMLElement>(null);
  const captionId = useId();
  const rows = model.rows;
  const virtualizer = useVirtualizer<HTMLElement, HTMLTableRowElement>({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_ESTIMATE_PX,
    getItemKey: (index) => rowKey(rows[index]!),
    overscan: OVERSCAN,
    initialRect: { width: 0, height: NO_LAYOUT_HEIGHT_PX },
    observeElementRect: observeScroller,
    measureElement: measureRow,
  });
  // Whether the box was at its end when the reader last scrolled (or never scrolled).
  const following = useRef(true);
  const live = model.inFlight !== null || rows.at(-1)?.type === 'gap';
  useLayoutEffect(() => {
    if (live && following.current && rows.length > 0) {
      virtualizer.scrollToIndex(rows.length - 1, { align: 'end' });
    }
  }, [live, rows.length, virtualizer]);
  const onScroll = (event: { currentTarget: HTMLElement }) => {
    const { scrollTop, scrollHeight, clientHeight } = event.currentTarget;
    following.current = scrollHeight - scrollTop - clientHeight <= FOLLOW_SLACK_PX;
  };
  const items = virtualizer.getVirtualItems();
  const before = items[0]?.start ?? 0;
  const after = Math.max(0, virtualizer.getTotalSize() - (items.at(-1)?.end ?? 0));
  const measure = virtualizer.measureElement;
  const { sinceFirstAttempt } = labels;
  return (
    // A labelled section is a region; it takes focus so that a keyboard scrolls it.
    <section
      ref={scroller}
      data-runlight-part="scroller"
      aria-labelledby={captionId}
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be focusable
      tabIndex={0}
      onScroll={onScroll}
    >
      <table data-runlight-part="table" aria-rowcount={rows.length + 1}>
        <caption id={captionId}>{caption}</caption>
        <thead>
          <tr aria-rowindex={1}>
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
          {before > 0 ? <Spacer height={before} /> : null}
          {items.map(({ index }) => {
            const row = rows[index]!;
            const place = { index, measure, format, sinceFirstAttempt };
            if (row.type === 'gap') {
              const words = describeGap(row.gap, labels);
              if (!row.gap.inFlight) {
                return <GapRow key={row.gap.id} gap={row.gap} {...words} {...place} />;
              }
              const before = model.spans.find((span) => span.id === row.gap.after);
              const requestStartedAt = before?.requestStartedAt ?? before?.startedAt;
              return (
                <LiveGapRow
                  key={row.gap.id}
                  gap={row.gap}
                  runId={runId}
                  requestStartedAt={requestStartedAt ?? row.gap.startedAt}
                  {...words}
                  {...place}
                />
              );
            }
            const words = {
              heading: describeSpanHeading(row.span, labels),
              result: describeSpanResult(row.span, { activity, labels, recovers }),
            };
            return row.span.inFlight ? (
              <LiveSpanRow key={row.span.id} span={row.span} runId={runId} {...words} {...place} />
            ) : (
              <SpanRow key={row.span.id} span={row.span} liveMs={null} {...words} {...place} />
            );
          })}
          {after > 0 ? <Spacer height={after} /> : null}
        </tbody>
      </table>
    </section>
  );
});
