import type { RuntimeLogEntry } from '@runlight/runtime';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoServer, startDemoServer } from '../server/start-demo-server';
import { CRASH_ANSWER } from '../server/worker-crash-scenario';
import { launchChromium, PlaygroundPage } from './playground-page';
import { e2eViteCacheDir } from './vite-cache';

let server: DemoServer;
let browser: Browser;
let playground: PlaygroundPage;
const logs: RuntimeLogEntry[] = [];

beforeAll(async () => {
  server = await startDemoServer({
    viteCacheDir: e2eViteCacheDir(),
    port: 0,
    log: (entry) => logs.push(entry),
    viteLogLevel: 'warn',
    gates: true,
  });
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  playground = new PlaygroundPage(await context.newPage());
  await playground.open(server.url);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('the playground: a worker crashes mid-answer', () => {
  it('shows stalled once the lease expires, then streaming again as worker-b recovers, then completed with the whole text', async () => {
    // worker-b's recovery waits until the test has seen the stall (gate `recovery`).
    server.gates!.hold('worker-crashes', 'recovery');
    const runId = await playground.start('worker-crashes');
    await playground.waitForActivity('streaming');
    const written = async () =>
      (await playground.page.getByTestId('message-text').allTextContents()).join('');

    // The stall, as the page shows it while worker-b holds back (the run's status text may
    // follow the activity by a render, so it is waited for, not read in the first frame).
    await playground.waitForActivity('stalled', 20_000);
    // worker-a's lease expired and nobody has taken the run over yet. The demo runs recovery
    // (`RunlightProvider recovers`), so the status says it recovers.
    await expect
      .poll(() => playground.statusText(), { timeout: 30_000 })
      .toMatch(/worker stopped responding — recovering/i);
    expect(await playground.activity()).toBe('stalled');
    expect(await playground.page.getByTestId('owner').textContent()).toBe('worker-a');
    // What worker-a wrote before it died stays on the page, a prefix of the answer.
    const atStall = await written();
    expect(atStall.length).toBeGreaterThan(0);
    expect(CRASH_ANSWER.startsWith(atStall)).toBe(true);
    // Stalled since the lease expiry, not since the page noticed.
    expect(await playground.page.getByTestId('since').textContent()).not.toBe('—');

    server.gates!.release(runId, 'recovery');
    await playground.waitForActivity('streaming', 20_000);
    await playground.waitForActivity('completed', 30_000);
    expect(await playground.page.getByTestId('owner').textContent()).toBe('worker-b');
    expect(await written()).toBe(CRASH_ANSWER);
    // worker-b continues worker-a's sentence: one paragraph, no new "step 1" in mid-sentence.
    expect(await playground.page.getByTestId('message-text').count()).toBe(1);
    expect(await playground.page.getByTestId('step-divider').allTextContents()).toEqual(['step 0']);
    // The runtime continues the stored text part itself (issue 45): one part, so no seam to mark.
    expect(
      await playground.page.getByRole('img', { name: /another worker continued/ }).count(),
    ).toBe(0);
    const recovered = logs.filter(
      (entry) => entry.runId === runId && /recovery: recovered/.test(entry.message),
    );
    expect(recovered).toHaveLength(1);
  });
});
