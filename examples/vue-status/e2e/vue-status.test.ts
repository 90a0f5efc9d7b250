import { createRequire } from 'node:module';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ExampleServer, startExampleServer } from '../server/start-server';

/**
 * The Vue example in Chromium against a real Runlight server on loopback: a run that waits for
 * its model, a reload in the middle of the wait, and the run settling once it has finished.
 */
let server: ExampleServer;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  // Each run waits for its model until the test releases it: the reload lands mid-wait
  // whatever the machine's speed.
  server = await startExampleServer({ firstTokenMs: 0, holdProvider: true });
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  page = await browser.newPage();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const status = () => page.locator('[data-testid="status"]');
const seconds = async () => {
  const text = await status().locator('[data-runlight-part="elapsed"]').textContent();
  return Number.parseFloat(text ?? 'NaN');
};
const eventRequests = () => server.requests.filter((line) => line.endsWith('/events')).length;
const snapshotRequests = (runId: string) =>
  server.requests.filter((line) => line === `GET /api/runs/${runId}`).length;

async function axeViolations(): Promise<{ id: string; nodes: number }[]> {
  const source = createRequire(import.meta.url)('axe-core').source as string;
  await page.addScriptTag({ content: source });
  return page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: { run(): Promise<{ violations: { id: string; nodes: unknown[] }[] }> };
      }
    ).axe;
    const result = await axe.run();
    return result.violations.map((violation) => ({
      id: violation.id,
      nodes: violation.nodes.length,
    }));
  });
}

describe('@runlight/vue in Chromium against a real server', () => {
  it('a reload in the middle of the model wait keeps the since and the elapsed time; the finished run settles with no reconnect', async () => {
    await page.goto(server.url);
    await page.getByTestId('start').click();
    await expect
      .poll(() => status().getAttribute('data-activity'), { timeout: 30_000 })
      .toBe('waiting-for-model');
    await expect.poll(seconds, { timeout: 30_000 }).toBeGreaterThanOrEqual(1);
    const runId = new URL(page.url()).searchParams.get('run')!;
    const since = await page.getByTestId('since').getAttribute('datetime');
    expect(since).toMatch(/^\d{4}-\d\d-\d\dT/);
    const before = await seconds();
    expect(await status().getAttribute('role')).toBe('status');
    expect(await status().getAttribute('aria-live')).toBe('polite');
    expect(await status().locator('[data-runlight-part="label"]').textContent()).toBe(
      'Waiting for the model',
    );

    await page.reload();
    // Still the same wait: its since is the server's timestamp, not the page's load time…
    await expect.poll(() => status().getAttribute('data-activity')).toBe('waiting-for-model');
    expect(await page.getByTestId('since').getAttribute('datetime')).toBe(since);
    // …so the elapsed time goes on from where it was instead of starting at zero.
    await expect.poll(seconds).toBeGreaterThanOrEqual(before);
    expect(await axeViolations()).toEqual([]);

    server.releaseProvider();
    await expect
      .poll(() => status().getAttribute('data-activity'), { timeout: 30_000 })
      .toBe('completed');
    await expect.poll(() => page.getByTestId('connection').textContent()).toBe('closed');
    const finishedTime = await seconds();
    const streams = eventRequests();
    // Settled: no reconnect, no reload, and the time stops at the run's terminal commit.
    await page.waitForTimeout(2_500);
    expect(eventRequests()).toBe(streams);
    expect(await page.getByTestId('connection').textContent()).toBe('closed');
    expect(await seconds()).toBe(finishedTime);
    expect(finishedTime).toBeGreaterThanOrEqual(before);

    // A fresh page on the finished run: its snapshot once, and no event stream at all.
    const snapshots = snapshotRequests(runId);
    await page.reload();
    await expect.poll(() => status().getAttribute('data-activity')).toBe('completed');
    await expect.poll(() => page.getByTestId('connection').textContent()).toBe('closed');
    await page.waitForTimeout(1_000);
    expect(snapshotRequests(runId)).toBe(snapshots + 1);
    expect(eventRequests()).toBe(streams);
    expect(await seconds()).toBe(finishedTime);
    expect(await status().locator('[data-runlight-part="label"]').textContent()).toBe('Completed');
    expect(await axeViolations()).toEqual([]);
  });
});
