import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { AgentRuntimeDriver } from '@runlight/runtime';
import { createPostgresDriver, migrate } from '@runlight/store-postgres';
import pg from 'pg';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AFTER_APPROVAL,
  ANSWER,
  type ExampleServer,
  startExampleServer,
} from '../server/start-server';

/**
 * The AG-UI example in Chromium against a real Runlight runtime on loopback, once in memory and
 * once on PostgreSQL: a page on `@ag-ui/client` alone shows compaction, a retry and the provider
 * wait from the `runlight.operation` activity, and reloads mid-answer and mid-approval without
 * doubled text or a re-opened approval. The run is held at named gates the test releases, so
 * every step waits on an event, not on the machine's speed.
 */
let server: ExampleServer | undefined;
let browser: Browser;
let page: Page;
const errors: string[] = [];

const SCREENSHOT = fileURLToPath(new URL('../../../docs/ag-ui-provider-wait.png', import.meta.url));

interface OpenedStore {
  driver?: AgentRuntimeDriver;
  close(): Promise<void>;
}

/** A fresh schema on the PostgreSQL server at 127.0.0.1:5432 (database `test`), or `null`. */
async function openPostgres(): Promise<OpenedStore | null> {
  for (const user of [process.env.PGUSER, 'postgres', 'root']) {
    if (!user) continue;
    const pool = new pg.Pool({ host: '127.0.0.1', port: 5432, database: 'test', user, max: 10 });
    try {
      await pool.query('SELECT 1');
    } catch {
      await pool.end().catch(() => {});
      continue;
    }
    const schema = `rl_agui_example_${process.pid}_${randomBytes(4).toString('hex')}`;
    await migrate(pool, { schema });
    return {
      driver: createPostgresDriver({ client: pool, schema }),
      async close() {
        await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => {});
        await pool.end();
      },
    };
  }
  return null;
}

const STORES = [
  ['memory', async (): Promise<OpenedStore | null> => ({ close: async () => {} })],
  ['PostgreSQL', openPostgres],
] as const;

beforeAll(async () => {
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
});

afterAll(async () => {
  await browser?.close();
});

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
    let store: OpenedStore | null = null;

    beforeAll(async () => {
      store = await open();
      if (store === null) return;
      server = await startExampleServer({
        heldByTest: true,
        ...(store.driver ? { driver: store.driver } : {}),
      });
      page = await browser.newPage({ viewport: { width: 900, height: 640 } });
      errors.length = 0;
      page.on('console', (message) => {
        if (message.type() === 'error') errors.push(message.text());
      });
      page.on('pageerror', (error) => errors.push(error.message));
    });

    afterAll(async () => {
      await page?.close();
      await server?.close();
      await store?.close();
      server = undefined;
    });

    it('shows compaction, the retry and the provider wait; reloads mid-answer and mid-approval without duplicates or a re-opened approval', async (context) => {
      if (server === undefined)
        return context.skip('no PostgreSQL server answers at 127.0.0.1:5432');
      const { gates } = server;
      await page.goto(server.url);
      await page.getByTestId('start').click();

      // Compaction, from the activity's durable record.
      await expect.poll(activity, { timeout: 30_000 }).toBe('compacting');
      expect(await status().textContent()).toMatch(/^Compacting the context since \d\d:\d\d:\d\d$/);
      gates.release('compaction');

      // The first request fails with a retryable 503: the retry, counted down to its retryAt.
      await expect
        .poll(() => status().textContent(), { timeout: 30_000 })
        .toMatch(/^The model failed \(server_error\); retrying in \d+ s \(attempt 2 of 3\)$/);

      // The retry is sent and held before any output: the provider wait, since its start.
      await gates.reached('first-token');
      await expect
        .poll(() => status().textContent(), { timeout: 30_000 })
        .toMatch(/^Waiting for the model since \d\d:\d\d:\d\d \(\d+ s\) — attempt 2$/);
      expect(await activity()).toBe('waiting-for-model');
      expect(await status().getAttribute('data-attempt')).toBe('2');
      if (process.env.RUNLIGHT_SCREENSHOTS && name === 'memory')
        await page.screenshot({ path: SCREENSHOT });
      gates.release('first-token');

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
