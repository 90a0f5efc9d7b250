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
/** A tab not live by then is counted as never live (before, tabs past six never were). */
const CAP_MS = 20_000;

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

async function timeToLive(page: Page, url: string, started: number): Promise<number | null> {
  void page.goto(url).catch(() => {});
  try {
    await page.waitForFunction(
      () =>
        document.querySelector('[data-testid="connection"]')?.getAttribute('data-state') ===
          'live' &&
        document.querySelector('[data-testid="activity"]')?.getAttribute('data-kind') ===
          'awaiting-approval',
      undefined,
      { timeout: CAP_MS, polling: 25 },
    );
    return performance.now() - started;
  } catch {
    return null;
  }
}

try {
  // Warm Vite's module graph once, so the first measured count does not pay for compiling.
  const warm = await browser.newContext();
  await new PlaygroundPage(await warm.newPage()).open(server.url);
  await warm.close();
  console.log('tabs  mode      live     median ms  slowest ms  server event streams');
  for (const count of COUNTS) {
    for (const mode of ['shared', 'own'] as const) {
      const context = await browser.newContext();
      const runIds = await Promise.all(Array.from({ length: count }, startApprovalRun));
      const pages = await Promise.all(runIds.map(() => context.newPage()));
      const started = performance.now();
      const query = mode === 'own' ? '&shareTabs=0' : '';
      const times = await Promise.all(
        pages.map((page, index) =>
          timeToLive(page, `${server.url}/?run=${runIds[index]}${query}`, started),
        ),
      );
      const live = times.filter((time): time is number => time !== null).sort((a, b) => a - b);
      const median = live.length > 0 ? live[Math.floor(live.length / 2)]! : Number.NaN;
      const slowest = live.length > 0 ? live[live.length - 1]! : Number.NaN;
      const streams = server.eventStreams().open;
      console.log(
        `${String(count).padStart(4)}  ${mode.padEnd(8)}  ${`${live.length}/${count}`.padEnd(7)}  ${median.toFixed(0).padStart(9)}  ${slowest.toFixed(0).padStart(10)}  ${String(streams).padStart(21)}`,
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
