import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { RuntimeLogEntry } from '@runlight/runtime';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDER_SECRET } from '../server/demo-models';
import { type DemoServer, startDemoServer } from '../server/start-demo-server';
import { TOKEN_RANGE } from '../src/scenario-catalog';
import { NOTES_AFTER_END_MS } from '../src/server-notes';
import { launchChromium, PlaygroundPage } from './playground-page';
import { e2eViteCacheDir } from './vite-cache';

const SCREENSHOTS = fileURLToPath(new URL('../.screenshots/', import.meta.url));
/** `RUNLIGHT_README_SCREENSHOT=1` also refreshes the README's picture. */
const README_SCREENSHOT = fileURLToPath(new URL('../../../docs/playground.png', import.meta.url));

let server: DemoServer;
let browser: Browser;
let context: BrowserContext;
let playground: PlaygroundPage;
const logs: RuntimeLogEntry[] = [];

beforeAll(async () => {
  await mkdir(SCREENSHOTS, { recursive: true });
  server = await startDemoServer({
    viteCacheDir: e2eViteCacheDir(),
    port: 0,
    log: (entry) => logs.push(entry),
    viteLogLevel: 'warn',
    gates: true,
  });
  browser = await launchChromium();
  // One page for every test (each starts its own run): loading Vite's unbundled modules is
  // the slow part on a busy machine, and it also warms up dependency optimisation.
  context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  playground = new PlaygroundPage(await context.newPage());
  await playground.open(server.url);
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await server?.close();
});

afterEach(async (test) => {
  await playground.page.screenshot({
    path: `${SCREENSHOTS}${test.task.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 80)}.png`,
  });
  server.demo.updateSettings({ tokenMs: 60, latencyMs: 0 });
});

describe('the playground in a real browser', () => {
  it('slow first token: waiting with a ticking elapsed time that a reload does not reset, then streaming, then completed', async () => {
    // The provider wait lasts until the test releases it (gate `first-token`), not 8 s.
    server.gates!.hold('slow-first-token', 'first-token');
    const runId = await playground.start('slow-first-token');
    const waiting = await playground.waitForActivity('waiting-for-model');
    expect(waiting?.status).toMatch(/waiting for (the )?model/i);
    expect(await playground.statusText()).toMatch(/waiting for (the )?model/i);

    const first = await playground.elapsedMs();
    await waitForElapsedAbove(first);
    const ticked = await playground.elapsedMs();
    expect(ticked).toBeGreaterThan(first);
    await playground.waitForHistory();
    const [before] = await playground.timeline();

    await playground.page.reload();
    expect(new URL(playground.page.url()).searchParams.get('run')).toBe(runId);
    await playground.waitForActivity('waiting-for-model');
    expect(await playground.statusText()).toMatch(/waiting for (the )?model/i);
    const afterReload = await playground.elapsedMs();
    expect(afterReload).toBeGreaterThanOrEqual(ticked);
    // The wait began when the server recorded it, not when this page connected.
    await playground.waitForHistory();
    const [reloaded] = await playground.timeline();
    expect(reloaded).toEqual(before);
    expect(reloaded?.firstOutputAt).toBeNull();

    server.gates!.release(runId, 'first-token');
    await playground.waitForActivity('streaming');
    if (process.env.RUNLIGHT_README_SCREENSHOT === '1') {
      await playground.page.waitForTimeout(1500);
      await playground.page.screenshot({ path: README_SCREENSHOT });
    }
    await playground.waitForActivity('completed');
    expect(await playground.statusText()).toMatch(/completed/i);
    expect(await playground.messageText()).toContain('Durable run facts mean');
    const [request] = await playground.timeline();
    expect(request?.phase).toBe('completed');
    expect(request?.firstOutputAt).not.toBeNull();
    expect(request?.startedAt).toBe(reloaded?.startedAt);
  });

  it('approval: Approve runs the tool and the run completes', async () => {
    await playground.start('approval');
    await playground.page.getByTestId('approve').click();
    await playground.waitForActivity('completed');
    expect(await playground.page.getByTestId('tool-part').getAttribute('data-state')).toBe(
      'output-available',
    );
    expect(await playground.messageText()).toContain('42 files under build/ are deleted');
  });

  it('approval: Deny skips the tool and the model answers accordingly', async () => {
    await playground.start('approval');
    await playground.page.getByTestId('deny').click();
    await playground.waitForActivity('completed');
    expect(await playground.page.getByTestId('tool-part').getAttribute('data-state')).toBe(
      'output-denied',
    );
    expect(await playground.messageText()).toContain('left build/ untouched');
  });

  it('drop the connection mid-stream: the final text equals an uninterrupted run', async () => {
    server.demo.updateSettings({ tokenMs: 80 });
    await playground.start('quick-answer');
    await playground.waitForActivity('completed');
    const uninterrupted = await playground.messageText();

    // The same answer, held half way (`mid-text`) and near its end (`late-text`): each drop lands
    // while the run is held, so the rest of the text can only come on the resumed stream, whatever
    // the machine's speed. Each drop waits for the stream to break off; the release, for the
    // resumed stream to deliver text again.
    server.gates!.hold('quick-answer', 'mid-text');
    server.gates!.hold('quick-answer', 'late-text');
    const runId = await playground.start('quick-answer');
    await playground.waitForActivity('streaming');
    for (const [drop, point] of [
      [1, 'mid-text'],
      [2, 'late-text'],
    ] as const) {
      await playground.page.getByTestId('drop-connection').click();
      await waitForText(playground.page, 'event-log', 'stream broke off', drop);
      const before = await playground.page.evaluate(messageLength);
      server.gates!.release(runId, point);
      await playground.page.waitForFunction(
        (length) =>
          [...document.querySelectorAll('[data-testid="message-text"]')]
            .map((part) => part.textContent ?? '')
            .join('').length > length,
        before,
        { timeout: 30_000, polling: 20 },
      );
    }
    await playground.waitForActivity('completed', 60_000);
    expect(await playground.messageText()).toBe(uninterrupted);
    const log = await playground.page.getByTestId('event-log').textContent();
    expect(log).toMatch(/server dropped 1 connection/);
    expect(log).toMatch(/stream broke off/);
  });

  it('provider failure: shows its failure label and no provider error text anywhere', async () => {
    await playground.start('provider-failure');
    await playground.waitForActivity('failed');
    expect(await playground.page.getByTestId('failure-code').textContent()).toBe(
      'provider_failure',
    );
    expect(await playground.statusText()).toMatch(/failed/i);
    const page = await playground.everything();
    expect(page).not.toContain(PROVIDER_SECRET);
    expect(page).not.toContain('502 from upstream');
    // The failure is logged, redacted (kind, status, retryable): its text is nowhere (issue 46).
    expect(logs.some((entry) => entry.error !== undefined)).toBe(true);
    for (const entry of logs) {
      expect(`${String(entry.error)} ${JSON.stringify(entry)}`).not.toContain(PROVIDER_SECRET);
    }
  });

  it('a fresh client reloads the run from its snapshot: same activity, same original times; Cancel ends the wait', async () => {
    // Still waiting for its first token whatever the machine's speed (never released).
    server.gates!.hold('slow-first-token', 'first-token');
    await playground.start('slow-first-token');
    await playground.waitForActivity('waiting-for-model');
    await playground.waitForHistory();
    const [before] = await playground.timeline();
    const since = await playground.page.getByTestId('since').textContent();
    await playground.page.getByTestId('fresh-client').click();
    await playground.page.getByTestId('client-generation').filter({ hasText: '#2' }).waitFor();
    await playground.forgetShown();
    const fresh = await playground.waitForActivity('waiting-for-model');
    expect(fresh?.client).toBe('#2');
    expect(await playground.page.getByTestId('since').textContent()).toBe(since);
    await playground.waitForHistory();
    expect((await playground.timeline())[0]).toEqual(before);
    // Cancelled with the page's button while the run still waits for its first token.
    await playground.page.getByTestId('cancel-run').click();
    await playground.waitForActivity('cancelled');
    expect((await playground.timeline()).at(-1)?.phase).toBe('cancelled');
  });

  it('compaction: a not_needed and a compacted compaction before the model requests', async () => {
    // The first compaction lasts until the page has shown it (gate `compaction`).
    server.gates!.hold('compaction', 'compaction');
    const runId = await playground.start('compaction');
    await playground.waitForActivity('compacting');
    server.gates!.release(runId, 'compaction');
    await playground.waitForActivity('completed');
    await playground.waitForHistory();
    const compactions = (await playground.timeline()).filter((row) => row.kind === 'compaction');
    expect(compactions.map((row) => row.result)).toEqual([
      'completed (not needed)',
      'completed (compacted)',
    ]);
  });

  it('storage conflict: a lost compare-and-set ends the run storage_conflict, not provider_failure', async () => {
    await playground.start('storage-conflict');
    await playground.waitForActivity('failed');
    expect(await playground.page.getByTestId('failure-code').textContent()).toBe(
      'storage_conflict',
    );
    // The timeline names the failure as the status does, not as a model failure.
    expect(await playground.statusText()).toContain('Storage conflict');
    await playground.waitForHistory();
    const [request] = await playground.timeline();
    expect(request?.result).toBe('Failed: Storage conflict');
  });

  it('lease stolen: worker-b acquires after worker-a lost its lease and finishes the run', async () => {
    const runId = await playground.start('lease-stolen');
    await playground.waitForActivity('completed', 45_000);
    expect(await playground.page.getByTestId('owner').textContent()).toBe('worker-b');
    expect(await playground.messageText()).toContain('worker-b here');
    // Text that was shown and is gone (streamed live, never stored) is explained on the page.
    const final = (await playground.page.getByTestId('message-text').allTextContents()).join('');
    // Every text the page showed on the way (each rendered frame), as a reader saw it.
    const seen = await playground.page.evaluate(
      (run) =>
        (window.__runlightShown?.states ?? []).filter((s) => s.runId === run).map((s) => s.text),
      runId,
    );
    expect(seen.length).toBeGreaterThan(0);
    const vanished = seen.filter((text) => !final.startsWith(text));
    const notice = playground.page.getByTestId('dropped-text');
    if (vanished.length > 0) {
      await notice.waitFor();
      expect(await notice.textContent()).toMatch(/never stored.*worker-b continues/);
    } else {
      expect(await notice.count()).toBe(0);
    }
    // worker-a's request, closed by worker-b's takeover, is not a model failure.
    await playground.waitForHistory();
    const [taken] = await playground.timeline();
    expect(taken?.result).toBe('failed: Another worker took over');
    await playground.page
      .getByTestId('server-notes')
      .filter({ hasText: 'ownership_lost' })
      .waitFor({ timeout: 30_000 });
  });

  it('a finished run: Cancel and Drop are disabled, the event log says completed once', async () => {
    await playground.start('quick-answer');
    await playground.waitForActivity('completed');
    for (const action of ['cancel-run', 'drop-connection']) {
      await playground.page.waitForFunction(
        (id) =>
          (document.querySelector(`[data-testid="${id}"]`) as HTMLButtonElement | null)
            ?.disabled === true,
        action,
        { timeout: 30_000 },
      );
    }
    const log = await playground.page.getByTestId('event-log').textContent();
    expect(log).toMatch(/completed/);
    expect(log).not.toMatch(/completed → completed/);
  });

  it('the page has a favicon and the token delay reaches the whole allowed range', async () => {
    const href = await playground.page.$eval(
      'link[rel="icon"]',
      (link) => (link as HTMLLinkElement).href,
    );
    const icon = await playground.page.request.get(href);
    expect(icon.status()).toBe(200);
    expect(icon.headers()['content-type']).toMatch(/image\/svg\+xml/);
    const slider = playground.page.getByTestId('token-rate');
    expect(await slider.getAttribute('max')).toBe(String(TOKEN_RANGE.max));
    await slider.fill(String(TOKEN_RANGE.max));
    await playground.page
      .getByTestId('token-value')
      .filter({ hasText: `${TOKEN_RANGE.max} ms` })
      .waitFor();
    expect(server.demo.settings().tokenMs).toBe(TOKEN_RANGE.max);
  });

  it('a run id the server does not know says so once: not waiting, not offline, Cancel and Drop off', async () => {
    await playground.page.goto(`${server.url}/?run=no-such-run`);
    await playground.page.getByTestId('connection-error').waitFor();
    const page = playground.page;
    await page
      .getByTestId('run-status')
      .filter({ hasText: 'This run does not exist' })
      .waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('connection-error').textContent()).toMatch(
      /keeps runs in memory/,
    );
    const text = (await page.getByTestId('run-panel').textContent()) ?? '';
    expect(text).not.toMatch(/Waiting for the run to start|could not be loaded|Loading/);
    expect(await page.getByTestId('connection').getAttribute('data-state')).not.toBe('offline');
    expect(await page.getByTestId('cancel-run').isDisabled()).toBe(true);
    expect(await page.getByTestId('drop-connection').isDisabled()).toBe(true);
    // Nothing below the summary waits for a run that will never come.
    expect(await page.getByTestId('timeline').count()).toBe(0);
    // Still so a while later (the old page turned `offline` after three 404s).
    await page.waitForTimeout(3000);
    expect(await page.getByTestId('connection').getAttribute('data-state')).not.toBe('offline');
    expect(await page.getByTestId('run-status').textContent()).toMatch(/This run does not exist/);
  });

  it('a finished run stops asking for its server notes once they can no longer change', async () => {
    await playground.open(server.url);
    const runId = await playground.start('quick-answer');
    const asked: string[] = [];
    const onRequest = (request: { url(): string }) => {
      if (new URL(request.url()).pathname === `/api/demo/runs/${runId}`) asked.push(request.url());
    };
    playground.page.on('request', onRequest);
    await playground.waitForActivity('completed');
    // Notes may still change for a moment after the end (an execution that lost the run ends
    // later); past that the page stops asking — it used to ask every second forever.
    await playground.page.waitForTimeout(NOTES_AFTER_END_MS + 1500);
    const settled = asked.length;
    expect(settled).toBeGreaterThan(0);
    await playground.page.waitForTimeout(3000);
    expect(asked.length).toBe(settled);
    playground.page.off('request', onRequest);
  });
});

/** Waits until the page's elapsed time has ticked past `ms` (it ticks while the run waits). */
async function waitForElapsedAbove(ms: number) {
  await playground.page.waitForFunction(
    (previous) =>
      Number(document.querySelector('[data-testid="elapsed"]')?.getAttribute('data-ms')) > previous,
    ms,
    { timeout: 30_000 },
  );
}

/** Waits until the element's text holds `needle` at least `times` times. */
async function waitForText(page: Page, testId: string, needle: string, times: number) {
  await page.waitForFunction(
    ([id, text, count]) =>
      (document.querySelector(`[data-testid="${id}"]`)?.textContent ?? '').split(text).length - 1 >=
      count,
    [testId, needle, times] as const,
    { timeout: 30_000, polling: 20 },
  );
}

/** How many characters of the assistant's message the page shows (runs in the page). */
function messageLength(): number {
  return [...document.querySelectorAll('[data-testid="message-text"]')]
    .map((part) => part.textContent ?? '')
    .join('').length;
}
