import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NextServer, startNextServer } from './next-server';

/**
 * Issue 48 under `next start`: a Next.js route handler's response sends no headers until its
 * body's first chunk, so the event stream of an idle run (waiting for approval) answered only
 * at the runtime's first heartbeat, 15 s later, holding one of the browser's six sockets while
 * the page read `connecting`. Every event stream now writes `: open` at once. The first chunk is
 * checked by its content, not by a clock: before, it was the heartbeat's `: ping`.
 */
let server: NextServer;
let browser: Browser;

beforeAll(async () => {
  server = await startNextServer();
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function firstChunk(url: string, headers: HeadersInit = {}): Promise<string> {
  const abort = new AbortController();
  const response = await fetch(url, { headers, signal: abort.signal });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const { value } = await response.body!.getReader().read();
  abort.abort();
  return new TextDecoder().decode(value);
}

describe('event streams under next start', () => {
  it("an idle run's stream (per run and multiplexed) opens with ': open', not the 15 s heartbeat", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(server.url);
    await page.locator('[data-chat="ready"]').waitFor();
    await page.getByLabel('Message').fill('Clean up the build folder');
    await page.getByRole('button', { name: 'Send' }).click();
    await page
      .locator('.chat-tool[data-tool="deleteFiles"][data-state="approval-requested"]')
      .waitFor({ timeout: 60_000 });
    const runId = (await page.locator('.chat-run-id code').textContent())!;
    await context.close();
    const snapshot = (await (await fetch(`${server.url}/api/runs/${runId}`)).json()) as {
      revision: number;
    };
    // At the run's own revision: nothing to replay, nothing live until someone answers.
    const cursor = String(snapshot.revision);
    expect(
      await firstChunk(`${server.url}/api/runs/${runId}/events`, { 'last-event-id': cursor }),
    ).toBe(': open\n\n');
    const multiplexed = await firstChunk(
      `${server.url}/api/run-events?run=${encodeURIComponent(`${runId}@${cursor}`)}`,
    );
    expect(multiplexed.startsWith(': open\n\n')).toBe(true);
  });
});
