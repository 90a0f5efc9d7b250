import { createRunlightClient, type RunlightClient } from '@runlight/client';
import type { RunOperationEvent } from '@runlight/protocol';
import {
  at,
  operationEvent,
  RUN_ID,
  requestAttempt,
  snapshot,
  TIMELINE_HISTORY,
} from '@runlight/test-utils';
import { QueryClient } from '@tanstack/react-query';
import { cleanup, render, screen, within } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeRunServer } from '../../__tests__/fake-run-server';
import { advance, settle, useFakeClock } from '../../__tests__/harness';
import { RunlightProvider } from '../../provider/runlight-provider';
import { RunStatus } from '../../status/run-status';
import { RunTimeline } from '../run-timeline';

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

function setup(history: RunOperationEvent[], revision = 9) {
  const server = fakeRunServer({
    json: snapshot(revision, { lastOperation: history.at(-1)?.operation ?? null }),
  });
  const pages: string[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const url = String(input);
    if (url.includes('/operations')) {
      pages.push(url);
      const after = Number(new URL(url).searchParams.get('after'));
      const operations = history.filter((event) => event.revision > after);
      return Response.json({ runId: RUN_ID, operations, nextAfter: null, revision });
    }
    return server.fetch(input, init);
  };
  const client: RunlightClient = createRunlightClient({
    baseUrl: 'http://runlight.test/api',
    fetch,
    random: () => 0,
  });
  const wrapper = ({ children }: { children?: ReactNode }) => (
    <RunlightProvider client={client} queryClient={new QueryClient()}>
      {children}
    </RunlightProvider>
  );
  return { server, pages, wrapper };
}

describe('RunTimeline', () => {
  it('loads the history once and shows every operation as text in a table (not only in colour)', async () => {
    useFakeClock(at(12));
    const { pages, wrapper } = setup(TIMELINE_HISTORY);
    render(<RunTimeline runId={RUN_ID} />, { wrapper });
    await settle();
    const table = screen.getByRole('table', { name: /where the run spent its time/i });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((row) => row.querySelector('th')?.textContent)).toEqual([
      'Compaction',
      'Model request',
      'Model request, attempt 2 of the request',
      'Between operations',
      'Model request',
    ]);
    expect(rows[0]?.textContent).toContain('completed (compacted)');
    expect(rows[1]?.textContent).toContain(
      'failed (rate limited) — retried as attempt 2 of the request',
    );
    expect(rows[2]?.textContent).toContain('2.0 s'); // wait and streaming from the records
    expect(pages).toHaveLength(1);
    // The picture is decoration: every bar cell is hidden from assistive technology.
    for (const cell of table.querySelectorAll('[data-runlight-part="bar"]')) {
      expect(cell.getAttribute('aria-hidden')).toBe('true');
    }
  });

  it('grows the bar of the operation in flight with the clock', async () => {
    useFakeClock(at(12));
    const { wrapper } = setup(TIMELINE_HISTORY);
    const { container } = render(<RunTimeline runId={RUN_ID} />, { wrapper });
    await settle();
    const running = () =>
      container.querySelector('tr[data-in-flight] [data-runlight-part="total-text"]')?.textContent;
    const before = running();
    expect(before).toMatch(/so far/);
    await advance(2000);
    expect(running()).not.toBe(before);
    const total = () =>
      Number(
        (container.firstElementChild as HTMLElement | null)?.style.getPropertyValue('--rl-total'),
      );
    expect(total()).toBeGreaterThan(12_000);
  });

  it('a live event changes the row in flight only (memoised rows keep their DOM)', async () => {
    useFakeClock(at(12));
    const { server, wrapper } = setup(TIMELINE_HISTORY);
    const { container } = render(<RunTimeline runId={RUN_ID} />, { wrapper });
    await settle();
    const running = container.querySelector<HTMLElement>('tr[data-in-flight]')!;
    // The row in flight reads what the status reads for the same moment.
    expect(running.textContent).toContain('Waiting for the model');
    const records: MutationRecord[] = [];
    const observer = new MutationObserver((seen) => records.push(...seen));
    observer.observe(container, {
      subtree: true,
      childList: true,
      attributes: true,
      characterData: true,
    });
    server.send(
      operationEvent(10, { ...requestAttempt(1, 1, 'first-output'), firstOutputAt: at(11.5) }),
    );
    await settle();
    records.push(...observer.takeRecords());
    observer.disconnect();
    expect(running.isConnected).toBe(true);
    expect(running.getAttribute('data-phase')).toBe('first-output');
    expect(running.textContent).toContain('Writing the answer');
    expect(records.length).toBeGreaterThan(0);
    // Every change is inside the running row, or the scale on the root (`--rl-total`).
    const root = container.firstElementChild;
    for (const record of records) {
      const target = record.target instanceof Element ? record.target : record.target.parentElement;
      expect(target === root || running.contains(target)).toBe(true);
    }
  });

  it('headless: the render prop receives the model', async () => {
    useFakeClock(at(12));
    const { wrapper } = setup(TIMELINE_HISTORY);
    render(
      <RunTimeline runId={RUN_ID}>{(model) => <p>{model.spans.length} operations</p>}</RunTimeline>,
      {
        wrapper,
      },
    );
    await settle();
    expect(screen.getByText('4 operations')).toBeTruthy();
  });

  it('a status indicator alone never reads the history', async () => {
    useFakeClock(at(12));
    const { pages, wrapper } = setup(TIMELINE_HISTORY);
    render(<RunStatus runId={RUN_ID} />, { wrapper });
    await settle();
    await advance(1000);
    expect(pages).toHaveLength(0);
  });
});
