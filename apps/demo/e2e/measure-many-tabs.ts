/**
 * What many tabs of one browser cost, in Chromium on plain HTTP/1.1 (issue 48): for 1, 6, 10
 * and 20 tabs of the playground, each watching its own run paused for approval, opened side by
 * side in one profile — how many tabs go live within `CAP_MS`, the time each took (median and
 * slowest), and the event streams the server holds. Each tab count runs twice in the same run:
 * with the tabs sharing (the playground's default) and with `?shareTabs=0` (every tab its own
 * per-run stream, as before), so the figures compare like with like on this machine.
 *
 *   node --import tsx --conditions=@runlight/source apps/demo/e2e/measure-many-tabs.ts [1,6,10,20]
 */
import type { Page } from 'playwright-core';
import { startDemoServer } from '../server/start-demo-server';
import { launchChromium, PlaygroundPage } from './playground-page';

const COUNTS = (process.argv[2] ?? '1,6,10,20').split(',').map(Number);
/**
 * A tab not live by then is counted as never live (before, tabs past six never were). Generous:
 * Vite's dev server sends each tab a few hundred modules, on the same six sockets.
 */
const CAP_MS = 60_000;

const server = await startDemoServer({ port: 0, log: () => {}, viteLogLevel: 'error' });
const browser = await launchChromium();

async function startApprovalRun(): Promise<string> {
  const response = await fetch(`${server.url}/api/demo/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ scenario: 'approval' }),
  });
  return ((await response.json()) as { runId: string }).runId;
}

interface TabTimes {
  /** From the tab's navigation to its run panel rendered (the page's modules loaded). */
  loaded: number | null;
  /** From the navigation to the run shown live (its event stream answered). */
  live: number | null;
}

async function openTab(page: Page, url: string, runId: string): Promise<TabTimes> {
  const started = performance.now();
  const times: TabTimes = { loaded: null, live: null };
  void page.goto(url).catch(() => {});
  try {
    await page
      .locator(`[data-testid="run-panel"][data-run-id="${runId}"]`)
      .waitFor({ timeout: CAP_MS });
    times.loaded = performance.now() - started;
    await page.waitForFunction(
      () =>
        document.querySelector('[data-testid="connection"]')?.getAttribute('data-state') ===
          'live' &&
        document.querySelector('[data-testid="activity"]')?.getAttribute('data-kind') ===
          'awaiting-approval',
      undefined,
      { timeout: Math.max(1, CAP_MS - times.loaded), polling: 25 },
    );
    times.live = performance.now() - started;
  } catch {
    // Past the cap: reported as not loaded / not live.
  }
  return times;
}

const median = (values: number[]) =>
  values.length === 0 ? Number.NaN : values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const cell = (value: number, width: number) =>
  (Number.isNaN(value) ? '-' : value.toFixed(0)).padStart(width);

try {
  // Warm Vite's module graph once, so the first measured count does not pay for compiling.
  const warm = await browser.newContext();
  await new PlaygroundPage(await warm.newPage()).open(server.url);
  await warm.close();
  console.log(
    'tabs  mode   loaded  live   median live ms  slowest live ms  median load->live ms  server streams',
  );
  for (const count of COUNTS) {
    for (const mode of ['shared', 'own'] as const) {
      const context = await browser.newContext();
      const runIds = await Promise.all(Array.from({ length: count }, startApprovalRun));
      const pages = await Promise.all(runIds.map(() => context.newPage()));
      const query = mode === 'own' ? '&shareTabs=0' : '';
      const times = await Promise.all(
        pages.map((page, index) =>
          openTab(page, `${server.url}/?run=${runIds[index]}${query}`, runIds[index]!),
        ),
      );
      const loaded = times.filter((time) => time.loaded !== null).length;
      const live = times.flatMap((time) => (time.live === null ? [] : [time.live]));
      const gaps = times.flatMap((time) =>
        time.live === null || time.loaded === null ? [] : [time.live - time.loaded],
      );
      const streams = server.eventStreams().open;
      console.log(
        `${String(count).padStart(4)}  ${mode.padEnd(6)} ${`${loaded}/${count}`.padStart(6)}  ${`${live.length}/${count}`.padStart(5)}  ${cell(median(live), 15)}  ${cell(live.length > 0 ? Math.max(...live) : Number.NaN, 15)}  ${cell(median(gaps), 20)}  ${String(streams).padStart(14)}`,
      );
      await context.close();
      // The next count starts with no stream of this one left open.
      for (let i = 0; i < 200 && server.eventStreams().open > 0; i++)
        await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
} finally {
  await browser.close();
  await server.close();
}
