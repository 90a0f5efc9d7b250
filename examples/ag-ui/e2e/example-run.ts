import { randomBytes } from 'node:crypto';
import type { AgentRuntimeDriver } from '@runlight/runtime';
import { createPostgresDriver, migrate } from '@runlight/store-postgres';
import pg from 'pg';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import type { Gates } from '../server/gates';
import type { ExampleServer, ExampleServerOptions } from '../server/start-server';

/**
 * What the Chromium tests of the AG-UI example and of its assistant-ui sibling share: where the
 * runs are kept, and the run's status up to its provider wait as both pages show it.
 */
export interface OpenedStore {
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

/** In memory, then on PostgreSQL (`null` when no server answers: the test skips, saying so). */
export const STORES = [
  ['memory', async (): Promise<OpenedStore | null> => ({ close: async () => {} })],
  ['PostgreSQL', openPostgres],
] as const;

export const NO_POSTGRES = 'no PostgreSQL server answers at 127.0.0.1:5432';

/** One store's example: its server (`undefined` when the store is not there), page and errors. */
export interface ExamplePage {
  server: ExampleServer | undefined;
  page: Page;
  /** Every console error and page error, none filtered. */
  errors: string[];
}

/**
 * Registers, in the calling `describe`, a server on `open`'s store with its run held by the
 * test (`start`), and a Chromium page on it that records its errors; closes all three after.
 */
export function openExamplePage(
  open: () => Promise<OpenedStore | null>,
  start: (options: ExampleServerOptions) => Promise<ExampleServer>,
  viewport: { width: number; height: number },
  watch?: (page: Page) => void,
): ExamplePage {
  const example: ExamplePage = {
    server: undefined,
    page: undefined as unknown as Page,
    errors: [],
  };
  let store: OpenedStore | null = null;
  let browser: Browser | undefined;
  beforeAll(async () => {
    store = await open();
    if (store === null) return;
    example.server = await start({
      heldByTest: true,
      ...(store.driver ? { driver: store.driver } : {}),
    });
    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    example.page = await browser.newPage({ viewport });
    example.page.on('console', (message) => {
      if (message.type() === 'error') example.errors.push(message.text());
    });
    example.page.on('pageerror', (error) => example.errors.push(error.message));
    watch?.(example.page);
  });
  afterAll(async () => {
    await browser?.close();
    await example.server?.close();
    await store?.close();
  });
  return example;
}

/**
 * The page's status (`data-testid="status"`, `data-activity`, `data-attempt`) from the start of
 * the run to its provider wait, each gate released once the page showed it: compaction, the
 * failed first request's retry counted down to its retryAt, then the retry held before any
 * output. `atProviderWait` runs while the run is held there.
 */
export async function expectStatusUpToProviderWait(
  page: Page,
  gates: Gates,
  atProviderWait?: () => Promise<void>,
): Promise<void> {
  const status = page.getByTestId('status');
  const activity = () => status.getAttribute('data-activity');

  // Compaction, from the activity's durable record.
  await expect.poll(activity, { timeout: 30_000 }).toBe('compacting');
  expect(await status.textContent()).toMatch(/^Compacting the context since \d\d:\d\d:\d\d$/);
  gates.release('compaction');

  // The first request fails with a retryable 503: the retry, counted down to its retryAt.
  await expect
    .poll(() => status.textContent(), { timeout: 30_000 })
    .toMatch(/^The model failed \(server_error\); retrying in \d+ s \(attempt 2 of 3\)$/);

  // The retry is sent and held before any output: the provider wait, since its start.
  await gates.reached('first-token');
  await expect
    .poll(() => status.textContent(), { timeout: 30_000 })
    .toMatch(/^Waiting for the model since \d\d:\d\d:\d\d \(\d+ s\) — attempt 2$/);
  expect(await activity()).toBe('waiting-for-model');
  expect(await status.getAttribute('data-attempt')).toBe('2');
  await atProviderWait?.();
  gates.release('first-token');
}
