import { createRequire } from 'node:module';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ExampleServer, startExampleServer } from '../server/start-server';

const axeSource = (createRequire(import.meta.url)('axe-core') as { source: string }).source;

let server: ExampleServer;
let browser: Browser;

beforeAll(async () => {
  // Each run waits for its model until the test releases it: the reload lands mid-wait
  // whatever the machine's speed.
  server = await startExampleServer({ port: 0, watch: false, holdProvider: true });
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const STATUS = '[data-runlight="status"]';

async function waitForActivity(page: Page, kind: string, timeout = 60_000): Promise<void> {
  await page.waitForFunction(
    ([selector, wanted]) =>
      document.querySelector(selector!)?.getAttribute('data-activity') === wanted,
    [STATUS, kind],
    { timeout, polling: 50 },
  );
}

/** The shown time in ms (`4.2 s` → 4200), or null when none is shown. */
async function shownMs(page: Page): Promise<number | null> {
  const text = await page
    .locator(`${STATUS} [data-runlight-part="elapsed"]`)
    .textContent({ timeout: 30_000 })
    .catch(() => null);
  const match = /^(\d+(?:\.\d+)?) s$/.exec(text ?? '');
  return match ? Number(match[1]) * 1000 : null;
}

async function axeViolations(page: Page): Promise<unknown[]> {
  await page.addScriptTag({ content: axeSource });
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(): Promise<{ violations: unknown[] }> } }).axe;
    const result = await axe.run();
    return result.violations;
  });
}

const eventRequests = (runId: string) =>
  server.requests.filter((request) => request.startsWith(`GET /api/runs/${runId}/events`));

describe('@runlight/svelte in Chromium against a real runtime', () => {
  it('a reload mid-wait keeps the since and the elapsed time; a finished run settles with no reconnect; axe finds nothing', async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/?wait=0`);
    await page.getByTestId('start').click();
    await waitForActivity(page, 'waiting-for-model');
    const panel = page.getByTestId('run-panel');
    const runId = (await panel.getAttribute('data-run-id'))!;
    const since = await panel.getAttribute('data-since');
    expect(since).toMatch(/^\d{4}-\d\d-\d\dT/);
    await expect
      .poll(() => shownMs(page), { timeout: 15_000, interval: 100 })
      .toBeGreaterThanOrEqual(1500);
    expect(await page.locator(`${STATUS} [data-runlight-part="label"]`).textContent()).toBe(
      'Waiting for the model',
    );
    expect(await axeViolations(page), 'axe mid-wait').toEqual([]);
    const before = (await shownMs(page))!;

    // Reload mid-wait: the same operation, counted from the same server timestamp.
    await page.reload();
    await waitForActivity(page, 'waiting-for-model');
    expect(await page.getByTestId('run-panel').getAttribute('data-since')).toBe(since);
    const after = await shownMs(page);
    expect(after, 'the time did not restart at the reload').not.toBeNull();
    expect(after!).toBeGreaterThanOrEqual(before);
    const onServerClock = Date.now() - Date.parse(since!);
    expect(Math.abs(after! - onServerClock)).toBeLessThan(3000);

    server.releaseProvider();
    // The run finishes: the connection closes and stays closed.
    await waitForActivity(page, 'completed', 60_000);
    await page.waitForFunction(
      () =>
        document.querySelector('[data-testid="run-panel"]')?.getAttribute('data-connection') ===
        'closed',
      undefined,
      { timeout: 30_000 },
    );
    expect(await page.getByTestId('message').textContent()).toBe('The status survived the reload.');
    const settled = server.requests.length;
    await page.waitForTimeout(2500);
    expect(server.requests.slice(settled), 'no reconnect after the end').toEqual([]);
    expect(await page.locator(STATUS).textContent()).toMatch(/^Completed\d+(\.\d)? s$/);
    expect(await axeViolations(page), 'axe finished').toEqual([]);

    // A reload of the finished run: one snapshot, no event stream at all.
    const streamsBefore = eventRequests(runId).length;
    await page.reload();
    await waitForActivity(page, 'completed');
    await page.waitForTimeout(1000);
    expect(eventRequests(runId).length).toBe(streamsBefore);
    await page.close();
  });
});
