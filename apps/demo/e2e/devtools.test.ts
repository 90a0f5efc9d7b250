import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import {
  createRunlightClient,
  describeActivity,
  type RunState,
  selectActivity,
  statusText,
} from '@runlight/client';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDER_SECRET } from '../server/demo-models';
import { type DemoServer, startDemoServer } from '../server/start-demo-server';
import { DevtoolsPanel } from './devtools-page';
import { launchChromium, PlaygroundPage } from './playground-page';
import { e2eViteCacheDir } from './vite-cache';

const SCREENSHOTS = fileURLToPath(new URL('../.screenshots/', import.meta.url));
/** `RUNLIGHT_README_SCREENSHOT=1` also refreshes the devtools README's picture. */
const README_SCREENSHOT = fileURLToPath(new URL('../../../docs/devtools.png', import.meta.url));

let server: DemoServer;
let browser: Browser;
let context: BrowserContext;
let playground: PlaygroundPage;
let devtools: DevtoolsPanel;

beforeAll(async () => {
  await mkdir(SCREENSHOTS, { recursive: true });
  server = await startDemoServer({
    viteCacheDir: e2eViteCacheDir(),
    port: 0,
    log: () => {},
    viteLogLevel: 'warn',
  });
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
  playground = new PlaygroundPage(await context.newPage());
  devtools = new DevtoolsPanel(playground.page);
  await playground.page.emulateMedia({ colorScheme: 'light', reducedMotion: 'reduce' });
  await playground.open(server.url);
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await server?.close();
});

/** What a fresh client shows after loading the server's snapshot at `revision`. */
async function freshClientAt(runId: string, revision: number) {
  const response = await fetch(`${server.url}/api/demo/runs/${runId}/revisions/${revision}`);
  expect(response.status).toBe(200);
  const snapshot: unknown = await response.json();
  const client = createRunlightClient({
    baseUrl: `${server.url}/api`,
    loadSnapshot: async () => ({ snapshot, clockOffsetMs: 0 }),
  });
  const store = client.run(runId);
  await store.reload();
  const state: RunState = store.getState();
  // The activity a user saw when the revision was written: on the clock of its `updatedAt`.
  const activity = selectActivity(state, Date.parse(state.run!.updatedAt));
  return {
    revision: state.revision,
    activity: activity.kind,
    since: activity.since ?? null,
    label: statusText(describeActivity(activity, undefined, { recovers: true })),
    state: { revision: state.revision, run: state.run, assistant: state.assistant },
  };
}

describe('the devtools panel in the playground', () => {
  it('shows a run with a retry, a compaction and an approval; time travel equals a fresh client at each revision', async () => {
    const page = playground.page;
    const headStyles = () =>
      page.evaluate(() => document.head.querySelectorAll('style,link').length);
    const appLook = () =>
      page.evaluate(() => {
        const body = getComputedStyle(document.body);
        const title = getComputedStyle(document.querySelector('h1')!);
        return [body.color, body.backgroundColor, body.fontFamily, title.fontSize, title.color];
      });
    const runId = await playground.start('retry-compaction-approval');
    const stylesBefore = await headStyles();
    const lookBefore = await appLook();

    // Keyboard: Tab reaches the button, Enter opens the panel and moves focus into it.
    await devtools.toggle().focus();
    await page.keyboard.press('Enter');
    await devtools.panel().waitFor();
    expect(await devtools.toggle().getAttribute('aria-expanded')).toBe('true');
    expect(
      await page.evaluate(() => document.activeElement?.shadowRoot?.activeElement?.tagName),
    ).toBe('H2');
    expect(
      await page.locator(`[data-testid="runlight-devtools-run"][data-run-id="${runId}"]`).count(),
    ).toBe(1);

    await playground.waitForActivity('awaiting-approval', 45_000);
    const overview = page.getByTestId('runlight-devtools-overview');
    await page.waitForFunction(
      () =>
        document
          .querySelector('[data-runlight-devtools]')
          ?.shadowRoot?.querySelector('[data-fact="approvals"]')
          ?.textContent?.includes('deleteFiles'),
      undefined,
      { timeout: 30_000, polling: 50 },
    );
    expect(await overview.locator('[data-fact="connection"]').textContent()).toMatch(/^live/);
    expect(await overview.locator('[data-fact="holder"]').textContent()).toBe('worker-a');

    // axe-core: no violation in the light and the dark theme; the app's styles untouched.
    expect(await devtools.axeViolations()).toEqual([]);
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await devtools.axeViolations()).toEqual([]);
    await page.emulateMedia({ colorScheme: 'light' });
    expect(await headStyles()).toBe(stylesBefore);
    expect(await appLook()).toEqual(lookBefore);

    await page.getByTestId('approve').click();
    await playground.waitForActivity('completed', 45_000);
    await page.waitForFunction(
      () =>
        document
          .querySelector('[data-runlight-devtools]')
          ?.shadowRoot?.querySelector('[data-testid="runlight-devtools-travel"]')
          ?.getAttribute('data-activity') === 'completed',
      undefined,
      { timeout: 30_000, polling: 50 },
    );
    const rows = await devtools.logRows();
    expect(rows.some((row) => row.type === 'run-operation')).toBe(true);
    expect(
      Number(await page.getByTestId('runlight-devtools-deltas').getAttribute('data-deltas')),
    ).toBeGreaterThan(0);

    // Time travel, by keyboard: every revision the slider offers, from the first.
    await devtools.slider().focus();
    await page.keyboard.press('Home');
    const seen: string[] = [];
    const max = Number(await devtools.slider().getAttribute('max'));
    for (let index = 0; index <= max; index++) {
      if (index > 0) await page.keyboard.press('ArrowRight');
      const view = await devtools.travel();
      expect(view).toEqual(await freshClientAt(runId, view.revision));
      if (
        process.env.RUNLIGHT_README_SCREENSHOT === '1' &&
        view.activity === 'awaiting-approval' &&
        !seen.some((label) => /approval/i.test(label))
      ) {
        await page.screenshot({ path: README_SCREENSHOT });
      }
      seen.push(view.label ?? '');
    }
    const kinds = new Set(seen);
    expect([...kinds].join(' | ')).toMatch(/Compacting/);
    expect([...kinds].join(' | ')).toMatch(/attempt 2/i);
    expect([...kinds].join(' | ')).toMatch(/approval/i);
    expect([...kinds].join(' | ')).toMatch(/Completed/);

    // Copy run as JSON: what the server's policy sent (the demo exposes owners and fencing
    // tokens), never provider error text or the prompt.
    await page.getByTestId('runlight-devtools-copy').click();
    await page.getByText(/^Copied /).waitFor();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    const report = JSON.parse(copied) as { runId: string; log: { entries: unknown[] } };
    expect(report.runId).toBe(runId);
    expect(report.log.entries.length).toBe(rows.length);
    for (const secret of [
      PROVIDER_SECRET,
      '503 upstream busy',
      'Clean up the build folder',
      'Summary so far',
    ]) {
      expect(copied).not.toContain(secret);
    }

    // Escape closes the panel and gives focus back to the button.
    await page.keyboard.press('Escape');
    await devtools.panel().waitFor({ state: 'detached' });
    expect(await devtools.toggle().getAttribute('aria-expanded')).toBe('false');
    expect(
      await page.evaluate(() => document.activeElement?.shadowRoot?.activeElement?.textContent),
    ).toContain('Runlight devtools');
    await page.screenshot({ path: `${SCREENSHOTS}devtools.png` });
  });
});
