import { createRunlightClient } from '@runlight/client';
import { QueryClient } from '@tanstack/react-query';
import { act, cleanup, render, screen, within } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { timelineHistory } from '../../bench/timeline-history';
import { buildRunTimeline } from '../build-run-timeline';
import { RunTimeline } from '../run-timeline';
import { RunlightProvider } from '../runlight-provider';
import { fakeRunServer } from './fake-run-server';
import { settle, useFakeClock } from './harness';

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

const NOW = Date.parse('2026-12-02T12:00:00.000Z');

/** A finished run of `count` operations, its history served in one page. */
function setup(count: number) {
  const { events, snapshot, runId } = timelineHistory(count, { now: NOW });
  const server = fakeRunServer({ json: snapshot });
  const fetch: typeof globalThis.fetch = async (input, init) => {
    if (String(input).includes('/operations')) {
      const revision = snapshot.revision;
      return Response.json({ runId, operations: events, nextAfter: null, revision });
    }
    return server.fetch(input, init);
  };
  const client = createRunlightClient({ baseUrl: 'http://runlight.test/api', fetch });
  const wrapper = ({ children }: { children?: ReactNode }) => (
    <RunlightProvider client={client} queryClient={new QueryClient()}>
      {children}
    </RunlightProvider>
  );
  return { runId, wrapper, model: buildRunTimeline(events) };
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

  it('keeps every operation reachable: scrolling through draws each row once at its row index', async () => {
    useFakeClock(new Date(NOW).toISOString());
    const { runId, wrapper, model } = setup(500);
    render(<RunTimeline runId={runId} />, { wrapper });
    await settle();
    const table = screen.getByRole('table');
    const scroller = screen.getByRole('region');
    const seen = new Map<number, string>();
    // Rows count as 24 px each without layout; a window of 480 px moves 240 px at a time.
    for (let top = 0; top <= model.rows.length * 24; top += 240) {
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
  });

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
