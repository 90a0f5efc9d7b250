import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoServer, startDemoServer } from '../server/start-demo-server';
import { launchChromium, PlaygroundPage, type TimelineRow } from './playground-page';
import { e2eViteCacheDir } from './vite-cache';

/** `RUNLIGHT_README_SCREENSHOT=1` refreshes the README's picture of the timeline. */
const README_TIMELINE = fileURLToPath(new URL('../../../docs/run-timeline.png', import.meta.url));
const SHOT = fileURLToPath(new URL('../.screenshots/run-timeline.png', import.meta.url));

let server: DemoServer;
let browser: Browser;
let context: BrowserContext;

beforeAll(async () => {
  server = await startDemoServer({
    viteCacheDir: e2eViteCacheDir(),
    port: 0,
    log: () => {},
    viteLogLevel: 'warn',
    watch: false,
    gates: true,
  });
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await server?.close();
});

async function openPage(url: string): Promise<PlaygroundPage> {
  const playground = new PlaygroundPage(await context.newPage());
  await playground.open(url);
  return playground;
}

/** What the waterfall shows that must not depend on when the page connected. */
const facts = (rows: TimelineRow[]) =>
  rows.map(({ id, kind, phase, startedAt, firstOutputAt, endedAt, result }) => ({
    id,
    kind,
    phase,
    startedAt,
    firstOutputAt,
    endedAt,
    result,
  }));

describe('the run history in a real browser', () => {
  it('history after reload: finished and mid-run reloads show every operation with the times of a page that watched from the start', async () => {
    const watcher = await openPage(server.url);
    // The run holds in its last step's compaction until the reload below is done.
    server.gates!.hold('history-retry', 'last-compaction');
    const runId = await watcher.start('history-retry');
    const runUrl = `${server.url}/?run=${runId}`;

    // A second page reloads mid-run, while a later step is under way.
    const reloader = await openPage(runUrl);
    await reloader.page.waitForFunction(
      () =>
        document.querySelectorAll('[data-testid="timeline"] tr[data-kind="model-request"]')
          .length >= 3,
      undefined,
      { timeout: 30_000, polling: 50 },
    );
    await reloader.page.reload();
    // Reloaded while the run is still under way (held in the last compaction).
    await reloader.waitForActivity('compacting', 45_000);
    server.gates!.release(runId, 'last-compaction');
    await reloader.waitForActivity('completed', 45_000);
    await watcher.waitForActivity('completed', 45_000);
    await reloader.waitForHistory();
    const watched = facts(await watcher.timeline());

    // Three steps, compaction before each, a failed first attempt that was retried.
    expect(watched.filter((row) => row.kind === 'compaction')).toHaveLength(3);
    const requests = watched.filter((row) => row.kind === 'model-request');
    expect(requests.map((row) => row.phase)).toEqual([
      'failed',
      'completed',
      'completed',
      'completed',
    ]);
    expect(requests[0]?.result).toMatch(/failed.*retried/);
    expect(watched.every((row) => row.endedAt !== null)).toBe(true);

    expect(facts(await reloader.timeline())).toEqual(watched);
    await watcher.page.getByTestId('timeline').screenshot({
      path: process.env.RUNLIGHT_README_SCREENSHOT === '1' ? README_TIMELINE : SHOT,
    });
    // And after the run finished.
    await reloader.page.reload();
    await reloader.waitForActivity('completed');
    await reloader.waitForHistory();
    expect(facts(await reloader.timeline())).toEqual(watched);
    await reloader.page.close();
    await watcher.page.close();
  });

  it('the waterfall fits its column at 1024, 1400 and 1920 px: every bar ends inside the bar column, in view', async () => {
    const playground = await openPage(server.url);
    await playground.start('history-retry');
    await playground.waitForActivity('completed', 45_000);
    await playground.waitForHistory();
    for (const width of [1024, 1400, 1920]) {
      await playground.page.setViewportSize({ width, height: 1000 });
      const layout = await playground.page.evaluate(() => {
        const timeline = document.querySelector('[data-testid="timeline"]')!;
        const scroller = timeline.querySelector<HTMLElement>('[data-runlight-part="scroller"]')!;
        const card = timeline.closest('.card')!.getBoundingClientRect();
        const view = scroller.getBoundingClientRect();
        const bars = [...timeline.querySelectorAll('td[data-runlight-part="bar"]')].flatMap(
          (cell) => {
            const column = cell.getBoundingClientRect();
            return [...cell.querySelectorAll('span')].map((bar) => {
              const rect = bar.getBoundingClientRect();
              return {
                row: cell.closest('tr')?.getAttribute('data-operation-id') ?? 'gap',
                left: rect.left,
                right: rect.right,
                width: rect.width,
                columnLeft: column.left,
                columnRight: column.right,
                columnWidth: column.width,
              };
            });
          },
        );
        return {
          bars,
          viewRight: view.right,
          cardRight: card.right,
          scrollWidth: scroller.scrollWidth,
          clientWidth: scroller.clientWidth,
        };
      });
      const at = `at ${width} px`;
      expect(layout.bars.length, at).toBeGreaterThan(10);
      // Nothing to scroll sideways: the table is as wide as its box, the box within its card.
      expect(layout.scrollWidth, at).toBeLessThanOrEqual(layout.clientWidth);
      expect(layout.viewRight, at).toBeLessThanOrEqual(layout.cardRight + 0.5);
      for (const bar of layout.bars) {
        // A real column for the picture, not a sliver squeezed by the text beside it.
        expect(bar.columnWidth, `${at}, ${bar.row}`).toBeGreaterThanOrEqual(100);
        expect(bar.width, `${at}, ${bar.row}`).toBeGreaterThan(0);
        expect(bar.left, `${at}, ${bar.row}`).toBeGreaterThanOrEqual(bar.columnLeft - 0.5);
        expect(bar.right, `${at}, ${bar.row}`).toBeLessThanOrEqual(bar.columnRight + 0.5);
        expect(bar.right, `${at}, ${bar.row}`).toBeLessThanOrEqual(layout.viewRight + 0.5);
      }
    }
    await playground.page.close();
  });

  it('a native EventSource on a finished run stops after the 204; mid-run it resumes with Last-Event-ID and gets each event once', async () => {
    const playground = await openPage(server.url);
    const finished = await playground.start('quick-answer');
    await playground.waitForActivity('completed');

    // Every native EventSource request, with the headers Chromium really sent.
    let seen: Promise<{ lastEventId: string | undefined; status: number }>[] = [];
    playground.page.on('response', (response) => {
      const url = response.url();
      if (!url.includes('/events') || !url.includes('source=native')) return;
      seen.push(
        response
          .request()
          .allHeaders()
          .then((headers) => ({
            lastEventId: headers['last-event-id'],
            status: response.status(),
          })),
      );
    });
    const requests = () => Promise.all(seen);

    const finishedEvents = await playground.page.evaluate(async (runId) => {
      const source = new EventSource(`/api/runs/${runId}/events?source=native`);
      const ids: string[] = [];
      for (const type of [
        'run-status',
        'run-operation',
        'assistant-checkpoint',
        'assistant-append',
      ]) {
        source.addEventListener(type, (event) => ids.push((event as MessageEvent).lastEventId));
      }
      // Until the browser gives up for good: the 204 to its reconnect closes it (a closed
      // EventSource never reconnects). The bound only keeps a broken server from hanging.
      // (Inline: `evaluate` sends only this function to the page.)
      await new Promise<void>((resolve) => {
        const bound = setTimeout(resolve, 60_000);
        source.addEventListener('error', () => {
          if (source.readyState !== EventSource.CLOSED) return;
          clearTimeout(bound);
          resolve();
        });
      });
      const state = source.readyState;
      source.close();
      return { ids, state };
    }, finished);
    expect(finishedEvents.state).toBe(EventSourceClosed);
    // The replay, then one reconnect answered 204 — and nothing after it.
    const onFinished = await requests();
    expect(onFinished.map((request) => request.status)).toEqual([200, 204]);
    expect(onFinished[1]?.lastEventId).toBe(finishedEvents.ids.at(-1));
    expect(new Set(finishedEvents.ids).size).toBe(finishedEvents.ids.length);

    seen = [];
    // The run holds half way through its text (gate `mid-text`) while its stream is dropped and
    // resumed, so the drop lands mid-run whatever the machine's speed.
    server.gates!.hold('quick-answer', 'mid-text');
    const live = await playground.start('quick-answer');
    await playground.waitForActivity('streaming');
    const resumed = playground.page.evaluate(async (runId) => {
      const source = new EventSource(`/api/runs/${runId}/events?source=native`);
      const native = { revisions: [] as number[], opens: 0 };
      (window as unknown as { native: typeof native }).native = native;
      source.addEventListener('open', () => native.opens++);
      for (const type of [
        'run-status',
        'run-operation',
        'assistant-checkpoint',
        'assistant-append',
      ]) {
        source.addEventListener(type, (event) =>
          native.revisions.push(
            (JSON.parse((event as MessageEvent).data) as { revision: number }).revision,
          ),
        );
      }
      await new Promise<void>((resolve) => {
        const bound = setTimeout(resolve, 60_000);
        source.addEventListener('error', () => {
          if (source.readyState !== EventSource.CLOSED) return;
          clearTimeout(bound);
          resolve();
        });
      });
      source.close();
      return native.revisions;
    }, live);
    // The EventSource streams the run's events so far…
    await playground.page.waitForFunction(
      () => {
        const native = (window as unknown as { native?: { revisions: number[]; opens: number } })
          .native;
        return native !== undefined && native.opens >= 1 && native.revisions.length > 0;
      },
      undefined,
      { timeout: 30_000 },
    );
    // …the server drops the run's streams: the EventSource reconnects with its Last-Event-ID…
    await playground.page.getByTestId('drop-connection').click();
    await playground.page.waitForFunction(
      () => ((window as unknown as { native: { opens: number } }).native.opens ?? 0) >= 2,
      undefined,
      { timeout: 30_000 },
    );
    // …and the rest of the run arrives on the resumed stream, which ends with the run.
    server.gates!.release(live, 'mid-text');
    const revisions = await resumed;
    const midRun = await requests();
    expect(midRun.length).toBeGreaterThanOrEqual(3); // first, resumed after the drop, the 204
    expect(midRun[1]?.status).toBe(200);
    expect(midRun.slice(1).every((request) => request.lastEventId !== undefined)).toBe(true);
    expect(midRun.at(-1)?.status).toBe(204);
    // Each durable event once, in order, with nothing missing.
    expect(revisions).toEqual(revisions.map((_, index) => (revisions[0] ?? 1) + index));
    expect(revisions[0]).toBe(1);
    await playground.page.close();
  });
});

const EventSourceClosed = 2;
