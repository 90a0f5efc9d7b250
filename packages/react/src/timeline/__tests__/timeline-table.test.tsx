import { buildRunTimeline, createRunlightClient } from '@runlight/client';
import { QueryClient } from '@tanstack/react-query';
import { act, cleanup, render, screen, within } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { timelineHistory } from '../../../bench/timeline-history';
import { fakeRunServerWithHistory } from '../../__tests__/fake-run-server';
import { settle, useFakeClock } from '../../__tests__/harness';
import { RunlightProvider } from '../../provider/runlight-provider';
import { RunTimeline } from '../run-timeline';

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

const NOW = Date.parse('2026-12-02T12:00:00.000Z');

/** A run of `count` operations (the last in flight: live), its history served in one page. */
function setup(count: number, { inFlight = false } = {}) {
  const history = timelineHistory(count, { now: NOW, inFlight });
  const { events, runId } = history;
  const server = fakeRunServerWithHistory(history);
  const client = createRunlightClient({ baseUrl: 'http://runlight.test/api', fetch: server.fetch });
  const wrapper = ({ children }: { children?: ReactNode }) => (
    <RunlightProvider client={client} queryClient={new QueryClient()}>
      {children}
    </RunlightProvider>
  );
  return { runId, wrapper, server, events, model: buildRunTimeline(events) };
}

/** The drawn data rows: operation id (or `gap`) and `aria-rowindex`. */
const drawnRows = (table: HTMLElement) =>
  [...table.querySelectorAll('tbody tr:not([data-runlight-row="spacer"])')].map((row) => ({
    id: row.getAttribute('data-operation-id') ?? 'gap',
    rowIndex: Number(row.getAttribute('aria-rowindex')),
  }));

/** jsdom has no layout: the scroller's offset is stubbed, then a scroll event tells the window. */
async function scrollTo(scroller: HTMLElement, top: number) {
  Object.defineProperty(scroller, 'scrollTop', { configurable: true, get: () => top });
  await act(async () => {
    scroller.dispatchEvent(new Event('scroll'));
  });
}

describe('RunTimeline windowing', () => {
  it('draws only the rows in view of a long run and announces how many there are', async () => {
    useFakeClock(new Date(NOW).toISOString());
    const { runId, wrapper, model } = setup(500);
    render(<RunTimeline runId={runId} />, { wrapper });
    await settle();
    const table = screen.getByRole('table', { name: /where the run spent its time/i });
    expect(model.spans).toHaveLength(500);
    expect(table.getAttribute('aria-rowcount')).toBe(String(model.rows.length + 1));
    const rows = drawnRows(table);
    expect(rows.length).toBeGreaterThan(10);
    expect(rows.length).toBeLessThan(60);
    // Drawn rows sit at their place: the header is row 1, the first data row 2.
    expect(rows.map((row) => row.rowIndex)).toEqual(rows.map((_, index) => index + 2));
    // The rows not drawn are stood for by a spacer hidden from assistive technology.
    const spacers = table.querySelectorAll('tr[data-runlight-row="spacer"]');
    expect(spacers).toHaveLength(1);
    expect(spacers[0]?.getAttribute('aria-hidden')).toBe('true');
    // The scroller is a labelled region a keyboard can focus (to scroll).
    const region = screen.getByRole('region', { name: /where the run spent its time/i });
    expect(region.tabIndex).toBe(0);
  });

  // The scroll through 858 rows renders some 45 windows: about 2 s on a quiet machine, past
  // the default 30 s on CI's loaded one. It waits on nothing timed (a fake clock, each scroll
  // inside `act`): the timeout only bounds a hang.
  it('keeps every operation reachable: scrolling through draws each row once at its row index', async () => {
    useFakeClock(new Date(NOW).toISOString());
    const { runId, wrapper, model } = setup(500);
    render(<RunTimeline runId={runId} />, { wrapper });
    await settle();
    const table = screen.getByRole('table');
    const scroller = screen.getByRole('region');
    const seen = new Map<number, string>();
    // Rows count as 24 px each without layout; a window of 480 px moves a window at a time,
    // so consecutive windows share their overscan (10 rows each side).
    for (let top = 0; top <= model.rows.length * 24; top += 480) {
      await scrollTo(scroller, top);
      for (const row of drawnRows(table)) {
        const known = seen.get(row.rowIndex);
        if (known !== undefined) expect(known).toBe(row.id);
        seen.set(row.rowIndex, row.id);
      }
    }
    const expected = model.rows.map((row) => (row.type === 'gap' ? 'gap' : row.span.id));
    expect([...seen.keys()].sort((a, b) => a - b)).toEqual(expected.map((_, index) => index + 2));
    expect([...seen.entries()].sort(([a], [b]) => a - b).map(([, id]) => id)).toEqual(expected);
    // At the end, the last operation is drawn with its text.
    const last = within(table).getAllByRole('row').at(-1)!;
    expect(last.getAttribute('data-operation-id')).toBe(model.spans.at(-1)?.id);
    expect(last.textContent).toContain('completed');
  }, 180_000);

  it('a short run draws every row, no spacer', async () => {
    useFakeClock(new Date(NOW).toISOString());
    const { runId, wrapper, model } = setup(6);
    render(<RunTimeline runId={runId} />, { wrapper });
    await settle();
    const table = screen.getByRole('table');
    expect(drawnRows(table)).toHaveLength(model.rows.length);
    expect(table.querySelector('tr[data-runlight-row="spacer"]')).toBeNull();
  });
});

/**
 * jsdom has no layout: the scroll box is stubbed as 480 px tall with its content 24 px a row,
 * and `scrollTo` (what the windowing calls to follow the end) moves it and says so with a
 * scroll event.
 */
function stubScrolling() {
  const moves: number[] = [];
  const tops = new WeakMap<Element, number>();
  const isScroller = (element: HTMLElement) => element.dataset.runlightPart === 'scroller';
  const content = (element: HTMLElement) =>
    Number(element.querySelector('table')?.getAttribute('aria-rowcount') ?? 0) * 24;
  const original = HTMLElement.prototype.scrollTo;
  const geometry: Record<string, (element: HTMLElement) => number> = {
    scrollTop: (element) => tops.get(element) ?? 0,
    scrollHeight: content,
    clientHeight: () => 480,
  };
  for (const [name, value] of Object.entries(geometry)) {
    Object.defineProperty(HTMLElement.prototype, name, {
      configurable: true,
      get(this: HTMLElement) {
        return isScroller(this) ? value(this) : 0;
      },
    });
  }
  HTMLElement.prototype.scrollTo = function scrollTo(this: HTMLElement, options?: unknown) {
    const top = (options as ScrollToOptions | undefined)?.top ?? 0;
    moves.push(top);
    tops.set(this, top);
    this.dispatchEvent(new Event('scroll'));
  } as typeof HTMLElement.prototype.scrollTo;
  return {
    moves,
    content,
    /** The reader scrolls the box to `top`. */
    async readerScrolls(element: HTMLElement, top: number) {
      tops.set(element, top);
      await act(async () => {
        element.dispatchEvent(new Event('scroll'));
      });
    },
    restore() {
      HTMLElement.prototype.scrollTo = original;
      for (const name of Object.keys(geometry)) {
        delete (HTMLElement.prototype as unknown as Record<string, unknown>)[name];
      }
    },
  };
}

describe('RunTimeline follows a live run', () => {
  it('keeps the operation in flight in view until the reader scrolls away, and follows again from the end', async () => {
    useFakeClock(new Date(NOW).toISOString());
    const scrolling = stubScrolling();
    try {
      const { runId, wrapper, model, server, events } = setup(500, { inFlight: true });
      render(<RunTimeline runId={runId} />, { wrapper });
      await settle();
      const table = screen.getByRole('table');
      const scroller = screen.getByRole('region');
      // Opened live: the box went to its end, where the request in flight is drawn.
      expect(scrolling.moves.at(-1)).toBeGreaterThan(0);
      expect(drawnRows(table).map((row) => row.id)).toContain(model.inFlight?.id);

      // The reader scrolls back to the start; the run goes on: the box stays where it was.
      await scrolling.readerScrolls(scroller, 0);
      scrolling.moves.length = 0;
      const last = events.at(-1)!;
      const endedAt = new Date(NOW).toISOString();
      const nextStep = (last.operation.step ?? 0) + 1;
      await act(async () => {
        server.send({
          ...last,
          revision: last.revision + 1,
          operation: { ...last.operation, phase: 'failed', endedAt, willRetry: true },
        });
        server.send({
          ...last,
          revision: last.revision + 2,
          operation: {
            ...last.operation,
            id: `model-request:step-${nextStep}:retry`,
            step: nextStep,
            startedAt: endedAt,
          },
        });
      });
      await settle();
      expect(scrolling.moves.filter((top) => top > 0)).toEqual([]);
      expect(drawnRows(table)[0]?.rowIndex).toBe(2);

      // Back at the end, it follows again: the next operation brings the box along.
      await scrolling.readerScrolls(scroller, scrolling.content(scroller) - 480);
      await act(async () => {
        server.send({
          ...last,
          revision: last.revision + 3,
          operation: {
            ...last.operation,
            id: `model-request:step-${nextStep}:retry`,
            step: nextStep,
            startedAt: endedAt,
            phase: 'failed',
            endedAt,
          },
        });
        server.send({
          ...last,
          revision: last.revision + 4,
          operation: {
            ...last.operation,
            id: `model-request:step-${nextStep + 1}:again`,
            step: nextStep + 1,
            startedAt: endedAt,
          },
        });
      });
      await settle();
      expect(scrolling.moves.length).toBeGreaterThan(0);
      expect(drawnRows(table).map((row) => row.id)).toContain(
        `model-request:step-${nextStep + 1}:again`,
      );
    } finally {
      scrolling.restore();
    }
  });

  it('a finished run opens at its first operation', async () => {
    useFakeClock(new Date(NOW).toISOString());
    const scrolling = stubScrolling();
    try {
      const { runId, wrapper } = setup(500);
      render(<RunTimeline runId={runId} />, { wrapper });
      await settle();
      expect(scrolling.moves.filter((top) => top > 0)).toEqual([]);
      expect(drawnRows(screen.getByRole('table'))[0]?.rowIndex).toBe(2);
    } finally {
      scrolling.restore();
    }
  });
});
