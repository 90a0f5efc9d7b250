import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoServer, startDemoServer } from '../server/start-demo-server';
import { launchChromium, PlaygroundPage } from './playground-page';
import { e2eViteCacheDir } from './vite-cache';

/**
 * Issue 48, in Chromium on plain HTTP/1.1 (the dev server `pnpm demo` serves): one browser
 * profile, ten tabs of the playground, each watching its own run paused for approval. Chromium
 * gives a profile six connections per host; before, every tab held one event stream per run for
 * the whole run, so the seventh tab never loaded and every control of the six silently waited.
 * Now the tabs share: one tab reads every run over ONE multiplexed stream and the others follow
 * over a BroadcastChannel.
 *
 * On the main branch before this change the test fails at its first wait: tabs 7–10 never render
 * their run panel (the wait times out), and the server holds six event streams, not one.
 */
const TABS = 10;
let server: DemoServer;
let browser: Browser;
let context: BrowserContext;

beforeAll(async () => {
  server = await startDemoServer({
    viteCacheDir: e2eViteCacheDir(),
    port: 0,
    log: () => {},
    viteLogLevel: 'warn',
  });
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  // Vite compiles the page's modules on the first load: once, before the tabs race for sockets.
  const warm = new PlaygroundPage(await context.newPage());
  await warm.open(server.url);
  await warm.page.close();
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await server?.close();
});

async function startApprovalRun(): Promise<string> {
  const response = await fetch(`${server.url}/api/demo/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ scenario: 'approval' }),
  });
  expect(response.status).toBeLessThan(300);
  return ((await response.json()) as { runId: string }).runId;
}

/** Waits until the tab shows its run live and paused for approval. */
async function waitLiveAndAwaiting(page: Page, runId: string): Promise<void> {
  await page.locator(`[data-testid="run-panel"][data-run-id="${runId}"]`).waitFor({
    timeout: 90_000,
  });
  await page.waitForFunction(
    () =>
      document.querySelector('[data-testid="connection"]')?.getAttribute('data-state') === 'live' &&
      document.querySelector('[data-testid="activity"]')?.getAttribute('data-kind') ===
        'awaiting-approval',
    undefined,
    { timeout: 90_000, polling: 50 },
  );
}

const isLeading = (page: Page) =>
  page.evaluate(
    () => (window as { runlightTabLeading?: () => boolean }).runlightTabLeading?.() ?? false,
  );

const messageText = (page: Page) => new PlaygroundPage(page).messageText();

async function approveAndComplete(page: Page): Promise<void> {
  await page.getByTestId('approve').click();
  await new PlaygroundPage(page).waitForActivity('completed', 60_000);
}

describe('ten tabs of one browser profile on HTTP/1.1', () => {
  it('every tab loads and goes live on ONE event stream; Approve answers in any tab; closing the leading tab hands over with no gap', async () => {
    const runIds: string[] = [];
    for (let i = 0; i < TABS; i++) runIds.push(await startApprovalRun());
    const pages: Page[] = [];
    for (const runId of runIds) {
      const page = await context.newPage();
      pages.push(page);
      // Not awaited one by one: the tabs load side by side, as a user's restored session does.
      void page.goto(`${server.url}/?run=${runId}`).catch(() => {});
    }
    await Promise.all(pages.map((page, index) => waitLiveAndAwaiting(page, runIds[index]!)));

    // One event stream for the whole profile, read by exactly one tab.
    await expect.poll(() => server.eventStreams().open).toBe(1);
    const leading = await Promise.all(pages.map(isLeading));
    expect(leading.filter(Boolean)).toHaveLength(1);
    const leader = leading.indexOf(true);
    const followers = pages.map((_, index) => index).filter((index) => index !== leader);

    // Approve in a following tab: its control answers and its run completes, live.
    const first = followers[followers.length - 1]!;
    await approveAndComplete(pages[first]!);
    expect(await messageText(pages[first]!)).toContain('42 files under build/ are deleted');

    // The leading tab closes: another takes over the one stream, from the cursors it holds.
    await pages[leader]!.close();
    const remaining = followers.filter((index) => index !== first);
    await expect
      .poll(
        async () =>
          (await Promise.all(remaining.map((i) => isLeading(pages[i]!)))).filter(Boolean).length,
        {
          timeout: 30_000,
        },
      )
      .toBe(1);
    await expect.poll(() => server.eventStreams().open, { timeout: 30_000 }).toBe(1);

    // A run approved after the hand-over streams to its tab with nothing missing: the live
    // view equals what a fresh load of the run shows.
    const second = remaining[0]!;
    await approveAndComplete(pages[second]!);
    const live = await messageText(pages[second]!);
    const fresh = await context.newPage();
    await fresh.goto(`${server.url}/?run=${runIds[second]}`);
    await new PlaygroundPage(fresh).waitForActivity('completed', 90_000);
    expect(live).toBe(await messageText(fresh));
    expect(live).toContain('42 files under build/ are deleted');
    // Every other tab is still live on the new leader's stream.
    for (const index of remaining.slice(1)) {
      expect(await pages[index]!.getByTestId('connection').getAttribute('data-state')).toBe('live');
    }
    await fresh.close();
    for (const page of pages) if (!page.isClosed()) await page.close();
  });
});
