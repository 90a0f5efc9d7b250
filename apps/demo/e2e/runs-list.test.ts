import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoServer, startDemoServer } from '../server/start-demo-server';
import { launchChromium } from './playground-page';
import { e2eViteCacheDir } from './vite-cache';

let server: DemoServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;

/** Every event-stream request of the page (single-run or multiplexed) still open, via CDP. */
const streams = new Map<string, { url: string; protocol?: string }>();

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
  context = await browser.newContext({ viewport: { width: 1400, height: 1100 } });
  page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  const isStream = (url: string) => /\/api\/run-events\?|\/api\/runs\/[^/]+\/events/.test(url);
  cdp.on('Network.requestWillBeSent', (event) => {
    if (isStream(event.request.url)) streams.set(event.requestId, { url: event.request.url });
  });
  cdp.on('Network.responseReceived', (event) => {
    const open = streams.get(event.requestId);
    if (open) open.protocol = event.response.protocol;
  });
  cdp.on('Network.loadingFinished', (event) => void streams.delete(event.requestId));
  cdp.on('Network.loadingFailed', (event) => void streams.delete(event.requestId));
  await page.goto(`${server.url}/runs`);
  await page.getByTestId('start-batch').waitFor({ timeout: 60_000 });
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await server?.close();
});

/** What each row shows: its run id, activity and elapsed text. */
const rows = () =>
  page.$$eval('[data-testid="runs-list-row"]', (elements) =>
    elements.map((row) => {
      const status = row.querySelector('[data-runlight="status"]');
      return {
        runId: row.getAttribute('data-run-id') ?? '',
        activity: status?.getAttribute('data-activity') ?? null,
        elapsed: status?.querySelector('[data-runlight-part="elapsed"]')?.textContent ?? null,
      };
    }),
  );

const runsIn = (url: string) =>
  new URL(url).searchParams.getAll('run').map((run) => run.split('@')[0]);

describe('many runs on one page, in a real browser over HTTP/1.1', () => {
  it('20 live runs show every status and elapsed time over exactly one event-stream connection; rows scrolled out of view leave it', async () => {
    // The batch stays live until the test releases it (every fourth run waits for its model,
    // the others stream and hold before their end), whatever the machine's speed.
    server.gates!.hold('runs-batch', 'batch');
    await page.getByTestId('start-batch').click();
    await page.waitForFunction(
      () => document.querySelectorAll('[data-testid="runs-list-row"]').length === 20,
    );
    // Every row shows a live status: a wait or a stream with a ticking elapsed time.
    await expect
      .poll(
        async () => {
          const shown = await rows();
          const kinds = new Set(shown.map((row) => row.activity));
          return (
            kinds.has('waiting-for-model') &&
            kinds.has('streaming') &&
            shown.every(
              (row) =>
                (row.activity === 'waiting-for-model' || row.activity === 'streaming') &&
                /\d/.test(row.elapsed ?? ''),
            )
          );
        },
        { timeout: 30_000, interval: 100 },
      )
      .toBe(true);
    const live = await rows();
    expect(live).toHaveLength(20);
    expect(new Set(live.map((row) => row.activity))).toEqual(
      new Set(['waiting-for-model', 'streaming']),
    );

    // Exactly one event-stream connection carries all twenty, on HTTP/1.1.
    await expect.poll(() => streams.size, { timeout: 30_000 }).toBe(1);
    const [connection] = [...streams.values()];
    expect(connection!.url).toContain('/api/run-events?');
    expect(new Set(runsIn(connection!.url))).toEqual(new Set(live.map((row) => row.runId)));
    expect(connection!.protocol).toBe('http/1.1');

    // The elapsed times tick (the runs are live, not a frozen snapshot).
    const before = await rows();
    await expect
      .poll(
        async () =>
          (await rows()).filter((row, index) => row.elapsed !== before[index]!.elapsed).length,
        { timeout: 30_000, interval: 100 },
      )
      .toBeGreaterThan(0);

    // A short viewport: rows out of view unmount their status and leave the connection.
    await page.setViewportSize({ width: 1400, height: 420 });
    // The rows leave as they unmount, so the stream may reopen more than once: it settles on
    // one connection carrying exactly the rows in view.
    const inViewAndStreamed = async () => {
      const visible = await page.$$eval('[data-visible="true"]', (elements) => elements.length);
      const [open] = [...streams.values()];
      return { visible, streamed: streams.size === 1 ? runsIn(open!.url).length : -1 };
    };
    await expect
      .poll(
        async () => {
          const { visible, streamed } = await inViewAndStreamed();
          return visible < 20 && streamed === visible;
        },
        { timeout: 30_000, interval: 100 },
      )
      .toBe(true);
    expect(streams.size).toBe(1);

    // Every run still ends on the record, shown when its row scrolls back into view.
    for (const row of live) server.gates!.release(row.runId, 'batch');
    await page.setViewportSize({ width: 1400, height: 1100 });
    await expect
      .poll(
        async () =>
          (await rows()).every((row) => row.activity === 'completed' || row.activity === 'failed'),
        { timeout: 60_000, interval: 250 },
      )
      .toBe(true);
    const ended = await rows();
    expect(ended.some((row) => row.activity === 'failed')).toBe(true);
    for (const row of ended) {
      const run = await server.demo.store.getRun(row.runId);
      expect(row.activity).toBe(run.status);
    }
    await expect.poll(() => streams.size, { timeout: 30_000 }).toBe(0);
  });

  it('the list is styled and its columns line up: every status starts at the same place', async () => {
    const columns = await page.$$eval('[data-testid="runs-list-row"]', (elements) =>
      elements.slice(0, 8).map((row) => {
        const left = (selector: string) =>
          Math.round(row.querySelector(selector)?.getBoundingClientRect().left ?? -1);
        return {
          label: left('.runs-list-label'),
          id: left('.runs-list-id'),
          status: left('.runs-list-status'),
        };
      }),
    );
    expect(columns.length).toBeGreaterThan(1);
    for (const column of ['label', 'id', 'status'] as const) {
      expect(new Set(columns.map((row) => row[column])).size, column).toBe(1);
    }
    expect(
      await page.$eval('[data-testid="runs-list"]', (list) => list.closest('.card') !== null),
    ).toBe(true);
  });

  it('a run opened from the list does not poll a 404 for server notes every second', async () => {
    const [first] = await rows();
    const runPage = await context.newPage();
    const asked: number[] = [];
    runPage.on('response', (response) => {
      if (new URL(response.url()).pathname === `/api/demo/runs/${first!.runId}`) {
        asked.push(response.status());
      }
    });
    await runPage.goto(`${server.url}/?run=${encodeURIComponent(first!.runId)}`);
    await runPage.getByTestId('no-server-notes').waitFor({ timeout: 60_000 });
    expect(asked.every((status) => status === 404)).toBe(true);
    const before = asked.length;
    // The old page asked again every second; 2.5 s would have shown two more.
    await runPage.waitForTimeout(2500);
    expect(asked.length).toBe(before);
    await runPage.close();
  });

  it('the Real model scenario explains how to enable it when no provider is configured', async () => {
    const panel = page.getByTestId('real-model');
    if ((await panel.getAttribute('data-configured')) === 'false') {
      expect(await panel.textContent()).toMatch(/OPENAI_API_KEY.*RUNLIGHT_OPENAI_BASE_URL/s);
    } else {
      expect(await page.getByTestId('start-real-model').isVisible()).toBe(true);
    }
  });
});
