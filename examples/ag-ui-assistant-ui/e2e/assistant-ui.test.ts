import {
  expectStatusUpToProviderWait,
  NO_POSTGRES,
  openExamplePage,
  STORES,
} from '@runlight/example-ag-ui/e2e/example-run';
import { AFTER_APPROVAL, ANSWER } from '@runlight/example-ag-ui/server/start-server';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { startAssistantUiServer } from '../server/start';

/**
 * assistant-ui's AG-UI runtime (`@assistant-ui/react-ag-ui`) in Chromium, on `RunlightAgent` and
 * the AG-UI example's real runtime on loopback, once in memory and once on PostgreSQL: the
 * status shows compaction, the retry and the provider wait; reloads mid-answer and mid-approval
 * resume the run without doubled text or a second approval; the approval answered after a reload
 * completes the run. The run is held at named gates the test releases, so every step waits on an
 * event, not on the machine's speed.
 */
let page: Page;
/** The `RunAgentInput`s the page posts: a start, then only the approval's answer. */
const posts: { messages: { role: string }[]; resume?: unknown[] }[] = [];

const QUESTION = 'Please pay 5 for my order.';
const PAY = '→ pay({"amount":5})';
const PAID = `${PAY} ← {"paid":5}`;

const status = () => page.getByTestId('status');
const activity = () => status().getAttribute('data-activity');
const texts = (testId: string) =>
  page
    .getByTestId(testId)
    .evaluateAll((elements) => elements.map((element) => element.textContent ?? ''));
const assistantTexts = () => texts('assistant-text');
const approveButtons = () => page.getByTestId('approve').count();
const approvalSource = () => page.getByTestId('approval').getAttribute('data-source');

describe.each(STORES)(
  'a Runlight run in assistant-ui (AG-UI runtime), runs kept in %s (Chromium)',
  (_name, open) => {
    // Every console error counts, none filtered: the page must run clean on assistant-ui.
    const example = openExamplePage(
      open,
      startAssistantUiServer,
      { width: 900, height: 700 },
      (page) =>
        page.on('request', (request) => {
          if (request.method() === 'POST' && new URL(request.url()).pathname === '/api/ag-ui')
            posts.push(JSON.parse(request.postData() ?? '{}'));
        }),
    );

    it('shows compaction, the retry and the provider wait; reloads mid-answer, mid-approval and after the end without duplicates or a re-opened approval', async (context) => {
      const { server, errors } = example;
      if (server === undefined) return context.skip(NO_POSTGRES);
      page = example.page;
      posts.length = 0;
      const { gates } = server;
      await page.goto(server.url);
      await page.getByTestId('input').fill(QUESTION);
      await page.getByTestId('send').click();

      // Read off the agent's `runlight.operation` activity, which assistant-ui ignores.
      await expectStatusUpToProviderWait(page, gates);

      // Mid-answer: the text so far, then a reload resumes the run from its snapshot.
      await gates.reached('mid-text');
      await expect.poll(async () => (await assistantTexts())[0]?.length ?? 0).toBeGreaterThan(0);
      const partial = (await assistantTexts())[0]!;
      expect(await assistantTexts()).toEqual([partial]);
      expect(ANSWER.startsWith(partial)).toBe(true);
      expect(new URL(page.url()).searchParams.get('run')).toMatch(/^run-/);
      await page.reload();
      await expect.poll(assistantTexts, { timeout: 30_000 }).toEqual([partial]);
      expect(await texts('user-message')).toEqual([QUESTION]);
      await expect.poll(activity).toBe('streaming');
      gates.release('mid-text');

      // The rest of the answer, once, then the approval assistant-ui projected itself.
      await expect.poll(approveButtons, { timeout: 30_000 }).toBe(1);
      await expect.poll(activity).toBe('awaiting-approval');
      expect(await assistantTexts()).toEqual([ANSWER]);
      expect(await texts('tool-call')).toEqual([PAY]);
      expect(await approvalSource()).toBe('useAgUiInterrupts');

      // Mid-approval reload: assistant-ui drops the interrupt; the page shows the agent's
      // pending one — exactly one approval, the text once.
      await page.reload();
      await expect.poll(approveButtons, { timeout: 30_000 }).toBe(1);
      expect(await approvalSource()).toBe('agent.pendingInterrupts');
      await expect.poll(assistantTexts).toEqual([ANSWER]);
      expect(await texts('tool-call')).toEqual([PAY]);
      expect(await texts('user-message')).toEqual([QUESTION]);
      expect(await activity()).toBe('awaiting-approval');

      // Approved: the tool runs, the answer after the approval, the run completes.
      await page.getByTestId('approve').click();
      await expect.poll(activity, { timeout: 30_000 }).toBe('completed');
      await expect.poll(assistantTexts).toEqual([ANSWER, AFTER_APPROVAL]);
      await expect.poll(() => texts('tool-call')).toEqual([PAID]);
      expect(await approveButtons()).toBe(0);
      expect(await status().getAttribute('data-run-status')).toBe('completed');
      // Two posts: the start and the answer — the reloads resumed (GET), never started a run.
      // The answer carries `resume` and no client-side tool result: without
      // `autoCancelPendingToolCalls: false` assistant-ui adds one ("Tool call cancelled").
      expect(posts).toHaveLength(2);
      expect(posts[1]!.resume).toHaveLength(1);
      expect(posts[1]!.messages.filter((message) => message.role === 'tool')).toEqual([]);

      // After the end: a reload never re-opens the answered approval nor doubles anything.
      await page.reload();
      await expect.poll(activity, { timeout: 30_000 }).toBe('completed');
      await expect.poll(assistantTexts).toEqual([ANSWER, AFTER_APPROVAL]);
      expect(await texts('tool-call')).toEqual([PAID]);
      expect(await texts('user-message')).toEqual([QUESTION]);
      expect(await approveButtons()).toBe(0);
      expect(posts).toHaveLength(2);
      expect(errors).toEqual([]);
    });
  },
);
