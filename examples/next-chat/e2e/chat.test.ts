import { main } from '@runlight/cli';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NextServer, startNextServer } from './next-server';
import { startProviderStub } from './openai-compatible-stub';

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

/** Every console error or warning and every uncaught page error (hydration mismatches are both). */
function watchConsole(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (message) => {
    const text = message.text();
    if (message.type() === 'error' || message.type() === 'warning' || /hydrat/i.test(text)) {
      problems.push(`${message.type()}: ${text}`);
    }
  });
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`${response.status()} ${response.url()}`);
  });
  return problems;
}

/** `runlight` (@runlight/cli) on the example's run routes, as from a terminal. */
async function runlight(args: string[]): Promise<{ code: number; lines: string[] }> {
  let stdout = '';
  const write = (text: string) => {
    stdout += text;
  };
  const code = await main(args, { stdout: { write }, stderr: { write }, env: {} });
  return { code, lines: stdout.split('\n').filter((line) => line !== '') };
}

const assistantText = (page: Page) =>
  page.locator('.chat-message[data-role="assistant"] .chat-text').allTextContents();

describe('examples/next-chat in Chromium (production build, scripted model)', () => {
  it('sends a message, approves the tool call, reloads with history: same chat, no console error, no hydration warning', async () => {
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    const page = await context.newPage();
    const problems = watchConsole(page);
    await page.goto(server.url);
    await page.locator('[data-chat="ready"]').waitFor();

    await page.getByLabel('Message').fill('Clean up the build folder');
    await page.getByRole('button', { name: 'Send' }).click();

    // The tool that just runs, then the one that waits for approval: its card asks.
    const listed = page.locator('.chat-tool[data-tool="listFiles"][data-state="output-available"]');
    await listed.waitFor({ timeout: 30_000 });
    const asking = page.locator(
      '.chat-tool[data-tool="deleteFiles"][data-state="approval-requested"]',
    );
    await asking.waitFor({ timeout: 30_000 });
    // The registry's status pill (the source `npx shadcn add` installs) says what the run waits on.
    await page
      .locator('.chat-run [data-slot="runlight-status-pill"][data-activity="awaiting-approval"]')
      .waitFor({ timeout: 15_000 });
    await asking.getByRole('button', { name: 'Approve' }).click();

    // The run continues: the tool runs and the scripted answer streams to its end.
    await page
      .locator('.chat-tool[data-tool="deleteFiles"][data-state="output-available"]')
      .waitFor({ timeout: 30_000 });
    await page.waitForFunction(
      () =>
        [...document.querySelectorAll('.chat-message[data-role="assistant"] .chat-text')].some(
          (node) => node.textContent?.includes('carries on.)'),
        ),
      undefined,
      { timeout: 30_000, polling: 100 },
    );
    await page.locator('[data-chat-status="ready"]').waitFor({ timeout: 30_000 });
    const before = await assistantText(page);
    const runId = await page.locator('.chat-run-id code').textContent();
    expect(before.join(' ')).toContain('Done: the 42 files under build/ are deleted.');
    // The same run from a terminal, through the example's routes: ended, completed (exit 0).
    const tail = await runlight(['tail', `${server.url}/api`, runId!]);
    expect(tail.code).toBe(0);
    expect(tail.lines.at(-1)).toMatch(/ {2}Completed$/);
    const history = await runlight(['history', `${server.url}/api`, runId!]);
    expect(history.code).toBe(0);
    expect(history.lines.filter((line) => line.startsWith('Model request')).length).toBeGreaterThan(
      1,
    );

    // Reload with history: the server's HTML and the first browser render agree.
    await page.reload();
    await page.locator('[data-chat="ready"]').waitFor();
    await page.locator('[data-chat-status="ready"]').waitFor({ timeout: 30_000 });
    await expect(
      page.locator('.chat-message[data-role="user"] .chat-text').allTextContents(),
    ).resolves.toEqual(['Clean up the build folder']);
    await expect.poll(() => assistantText(page), { timeout: 15_000 }).toEqual(before);
    await expect(page.locator('.chat-run-id code').textContent()).resolves.toBe(runId);
    await page
      .locator('.chat-run [data-slot="runlight-status-pill"][data-activity="completed"]')
      .waitFor({ timeout: 15_000 });
    await page.locator('.chat-timeline li').first().waitFor({ timeout: 15_000 });
    // Give late hydration reports a moment to reach the console.
    await page.evaluate(
      () => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 500))),
    );

    expect(problems).toEqual([]);
    await context.close();

    // Another browser context (no shared storage — another device): the whole conversation,
    // user and assistant messages, from the server alone.
    const other = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    const second = await other.newPage();
    const secondProblems = watchConsole(second);
    await second.goto(server.url);
    await second.locator('[data-chat="ready"]').waitFor();
    await expect(
      second.locator('.chat-message[data-role="user"] .chat-text').allTextContents(),
    ).resolves.toEqual(['Clean up the build folder']);
    await expect.poll(() => assistantText(second), { timeout: 15_000 }).toEqual(before);
    await expect(second.locator('.chat-run-id code').textContent()).resolves.toBe(runId);
    expect(secondProblems).toEqual([]);
    await other.close();
  });

  it('stop() after a reload mid-answer cancels the run: the chat is ready, the status pill says Cancelled', async () => {
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    const page = await context.newPage();
    const problems = watchConsole(page);
    await page.goto(server.url);
    await page.locator('[data-chat="ready"]').waitFor();
    const runBefore = await page.locator('.chat-run-id code').textContent();
    await page.getByLabel('Message').fill('Count to a hundred and fifty');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect
      .poll(() => page.locator('.chat-run-id code').textContent(), { timeout: 15_000 })
      .not.toBe(runBefore);
    const runId = await page.locator('.chat-run-id code').textContent();
    await page.locator('[data-chat-status="streaming"]').waitFor({ timeout: 15_000 });

    await page.reload();
    await page.locator('[data-chat="ready"]').waitFor();
    await expect(page.locator('.chat-run-id code').textContent()).resolves.toBe(runId);
    await page.locator('[data-chat-status="streaming"]').waitFor({ timeout: 15_000 });
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.locator('[data-chat-status="ready"]').waitFor({ timeout: 15_000 });
    await page
      .locator('.chat-run [data-activity="cancelled"]')
      .first()
      .waitFor({ timeout: 15_000 });
    // The stopped answer says so beside it, and again after a reload.
    const stoppedAnswer = page.locator('.chat-message[data-role="assistant"][data-stopped]');
    await stoppedAnswer.last().waitFor({ timeout: 15_000 });
    expect(await stoppedAnswer.last().locator('.chat-stopped-mark').textContent()).toBe('Stopped');
    // From a terminal: the run was cancelled, exit 2.
    const tail = await runlight(['tail', `${server.url}/api`, runId!]);
    expect(tail.code).toBe(2);
    expect(tail.lines.at(-1)).toMatch(/ {2}Cancelled$/);
    await page.reload();
    await page.locator('[data-chat="ready"]').waitFor();
    await stoppedAnswer.last().waitFor({ timeout: 15_000 });
    await page.evaluate(
      () => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 500))),
    );
    expect(problems).toEqual([]);
    await context.close();
  });

  it('stop() during the start request: no empty assistant bubble, one "stopped" mark, also after a reload', async () => {
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    const page = await context.newPage();
    const problems = watchConsole(page);
    // Hold the start request back, so that Stop lands while it is under way.
    await page.route('**/api/chat', async (route) => {
      if (route.request().method() === 'POST') await new Promise((go) => setTimeout(go, 3000));
      await route.continue();
    });
    await page.goto(server.url);
    await page.locator('[data-chat="ready"]').waitFor();
    // The chat is shared with the tests before: a run of theirs still settling resumes here
    // first, and Send is taken only once the chat is ready again and the resume has settled
    // (Send is disabled until then; a message sent meanwhile read as idle: `useResume`).
    await page.locator('[data-chat-status="ready"]').waitFor({ timeout: 15_000 });
    await page.getByLabel('Message').fill('Count to a hundred and fifty');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('[data-chat-status="submitted"]').waitFor({ timeout: 15_000 });
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.locator('[data-chat-status="ready"]').waitFor({ timeout: 15_000 });
    await page
      .locator('.chat-run [data-activity="cancelled"]')
      .first()
      .waitFor({ timeout: 15_000 });
    /** Assistant bubbles that show nothing at all. */
    const emptyBubbles = () =>
      page.$$eval(
        '.chat-message[data-role="assistant"]',
        (items) => items.filter((item) => item.querySelector('.chat-parts > *') === null).length,
      );
    const lastItem = page.locator('.chat-messages > li').last();
    await lastItem.and(page.locator('[data-stopped]')).waitFor({ timeout: 15_000 });
    expect(await emptyBubbles()).toBe(0);
    expect(await lastItem.textContent()).toMatch(/Stopped/);

    await page.reload();
    await page.locator('[data-chat="ready"]').waitFor();
    await page.locator('[data-chat-status="ready"]').waitFor({ timeout: 15_000 });
    await page
      .locator('.chat-messages > li')
      .last()
      .and(page.locator('[data-stopped]'))
      .waitFor({ timeout: 15_000 });
    expect(await emptyBubbles()).toBe(0);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('Send waits while the resume looks for a run: a message sent then would read as idle', async () => {
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    const page = await context.newPage();
    // The page's first GET /api/chat loads the chat; the second is the resume's reconnect:
    // held until the test has looked.
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let gets = 0;
    await page.route('**/api/chat?*', async (route) => {
      if (route.request().method() === 'GET' && ++gets === 2) await released;
      await route.continue();
    });
    await page.goto(server.url);
    await page.locator('[data-chat="ready"][data-chat-resuming]').waitFor();
    const send = page.getByRole('button', { name: 'Send' });
    await page.getByLabel('Message').fill('Count to a hundred and fifty');
    expect(await send.isDisabled()).toBe(true);
    expect(await page.locator('.chat').getAttribute('data-chat-status')).toBe('ready');
    release();
    await page.locator('[data-chat="ready"]:not([data-chat-resuming])').waitFor();
    await send.click();
    await page.locator('[data-chat-status="streaming"]').waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.locator('[data-chat-status="ready"]').waitFor({ timeout: 30_000 });
    await context.close();
  });

  it('answers a cross-site start with 403 (the example’s authorize policy)', async () => {
    const response = await fetch(`${server.url}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'sec-fetch-site': 'cross-site' },
      body: JSON.stringify({ chatId: 'x', messages: [] }),
    });
    expect(response.status).toBe(403);
  });

  it('talks to an OpenAI-compatible provider when RUNLIGHT_OPENAI_BASE_URL and OPENAI_API_KEY are set', async () => {
    const stub = await startProviderStub('Hello from the provider on loopback.');
    const provided = await startNextServer({
      RUNLIGHT_OPENAI_BASE_URL: stub.baseUrl,
      OPENAI_API_KEY: 'test-key',
      RUNLIGHT_OPENAI_MODEL: 'stub-model',
    });
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const problems = watchConsole(page);
      await page.goto(provided.url);
      await page.locator('[data-chat="ready"]').waitFor();
      await page.getByLabel('Message').fill('Hi');
      await page.getByRole('button', { name: 'Send' }).click();
      await expect
        .poll(() => assistantText(page), { timeout: 30_000 })
        .toEqual(['Hello from the provider on loopback.']);
      expect(stub.requests).toEqual([{ authorization: 'Bearer test-key', model: 'stub-model' }]);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
      await provided.close();
      await stub.close();
    }
  });
});
