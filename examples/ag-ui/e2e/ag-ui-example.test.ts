import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { AFTER_APPROVAL, ANSWER, startExampleServer } from '../server/start-server';
import { expectStatusUpToProviderWait, NO_POSTGRES, openExamplePage, STORES } from './example-run';

/**
 * The AG-UI example in Chromium against a real Runlight runtime on loopback, once in memory and
 * once on PostgreSQL: a page on `@ag-ui/client` alone shows compaction, a retry and the provider
 * wait from the `runlight.operation` activity, and reloads mid-answer and mid-approval without
 * doubled text or a re-opened approval. The run is held at named gates the test releases, so
 * every step waits on an event, not on the machine's speed.
 */
let page: Page;

const SCREENSHOT = fileURLToPath(new URL('../../../docs/ag-ui-provider-wait.png', import.meta.url));

const status = () => page.getByTestId('status');
const activity = () => status().getAttribute('data-activity');
const assistantTexts = () =>
  page
    .locator('.message.assistant')
    .evaluateAll((elements) => elements.map((element) => element.textContent ?? ''));
const approveButtons = () => page.getByTestId('approve').count();

describe.each(STORES)(
  'a Runlight run in an AG-UI page, runs kept in %s (Chromium)',
  (name, open) => {
    const example = openExamplePage(open, startExampleServer, { width: 900, height: 640 });

    it('shows compaction, the retry and the provider wait; reloads mid-answer and mid-approval without duplicates or a re-opened approval', async (context) => {
      const { server, errors } = example;
      if (server === undefined) return context.skip(NO_POSTGRES);
      page = example.page;
      const { gates } = server;
      await page.goto(server.url);
      await page.getByTestId('start').click();

      await expectStatusUpToProviderWait(page, gates, async () => {
        if (process.env.RUNLIGHT_SCREENSHOTS && name === 'memory')
          await page.screenshot({ path: SCREENSHOT });
      });

      // Mid-answer: the text so far, then a reload.
      await gates.reached('mid-text');
      await expect.poll(assistantTexts, { timeout: 30_000 }).toHaveLength(1);
      await expect.poll(async () => (await assistantTexts())[0]?.length ?? 0).toBeGreaterThan(0);
      const partial = (await assistantTexts())[0]!;
      expect(ANSWER.startsWith(partial)).toBe(true);
      await page.reload();
      await expect.poll(assistantTexts, { timeout: 30_000 }).toEqual([partial]);
      expect(await activity()).toBe('streaming');
      gates.release('mid-text');

      // The approval: the whole answer once, and one approval.
      await expect.poll(approveButtons, { timeout: 30_000 }).toBe(1);
      expect(await activity()).toBe('awaiting-approval');
      expect(await assistantTexts()).toEqual([ANSWER, 'pay({"amount":5})'.replace(/^/, '→ ')]);

      // Mid-approval reload: the same one approval, the text once.
      await page.reload();
      await expect.poll(approveButtons, { timeout: 30_000 }).toBe(1);
      expect(await assistantTexts()).toEqual([ANSWER, '→ pay({"amount":5})']);

      await page.getByTestId('approve').click();
      await expect.poll(activity, { timeout: 30_000 }).toBe('completed');
      await expect.poll(assistantTexts).toEqual([ANSWER, '→ pay({"amount":5})', AFTER_APPROVAL]);
      expect(await approveButtons()).toBe(0);

      // After the end: a reload never re-opens the answered approval nor doubles anything.
      await page.reload();
      await expect.poll(activity, { timeout: 30_000 }).toBe('completed');
      expect(await assistantTexts()).toEqual([ANSWER, '→ pay({"amount":5})', AFTER_APPROVAL]);
      expect(await approveButtons()).toBe(0);
      expect(await page.locator('.message.tool').count()).toBe(1);
      expect(errors).toEqual([]);
    });
  },
);
