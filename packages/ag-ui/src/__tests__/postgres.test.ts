import { randomBytes } from 'node:crypto';
import type { Message } from '@ag-ui/core';
import { createAgentRuntimeStore } from '@runlight/runtime';
import { scriptedModel } from '@runlight/runtime/testing';
import { createPostgresDriver, migrate } from '@runlight/store-postgres';
import { isStepCount, tool } from 'ai';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { RunlightAgent } from '../client/runlight-agent';
import { serveAgUi } from './ag-ui-server';

const pay = tool({
  inputSchema: z.object({ amount: z.number() }),
  execute: async ({ amount }) => ({ paid: amount }),
});
const run = () => ({
  model: scriptedModel([
    { text: 'Paying 5 once you approve.', toolCalls: [{ toolName: 'pay', input: { amount: 5 } }] },
    { text: 'Paid 5.' },
  ]),
  tools: { pay },
  toolApproval: { pay: 'user-approval' as const },
  stopWhen: isStepCount(5),
});

type Database = { client: pg.Pool; close(): Promise<void> };

async function openServer(): Promise<Database | null> {
  for (const user of [process.env.PGUSER, 'postgres', 'root']) {
    if (!user) continue;
    const pool = new pg.Pool({ host: '127.0.0.1', port: 5432, database: 'test', user, max: 10 });
    try {
      await pool.query('SELECT 1');
      return { client: pool, close: () => pool.end() };
    } catch {
      await pool.end().catch(() => {});
    }
  }
  return null;
}

const databases: Database[] = [];
afterAll(() => Promise.all(databases.map((database) => database.close())));

const withoutMetadata = (messages: readonly Message[]) =>
  messages.map(({ ...message }) => {
    delete (message as { metadata?: unknown }).metadata;
    return message;
  });

/**
 * The same AG-UI flow on the PostgreSQL store, the server at 127.0.0.1:5432 (database `test`;
 * skipped, saying so, when none answers) — start, interrupt, answer through resume,
 * and a reload that holds what the watching page holds (its conversation read back from the
 * run inputs table).
 */
describe.each([['the PostgreSQL server at 127.0.0.1:5432', openServer]] as const)(
  'AG-UI on %s',
  (_, open) => {
    it('start → interrupt → resume → a reload holds the same messages', async (context) => {
      const database = await open();
      if (database === null) return context.skip('no PostgreSQL server answers at 127.0.0.1:5432');
      databases.push(database);
      const schema = `rl_agui_${process.pid}_${randomBytes(4).toString('hex')}`;
      await migrate(database.client, { schema });
      const store = createAgentRuntimeStore(
        createPostgresDriver({ client: database.client, schema }),
      );
      const server = await serveAgUi(run, { store });
      try {
        const watcher = new RunlightAgent({ url: server.url, threadId: 'thread-pg' });
        const failures: string[] = [];
        watcher.subscribe({ onRunFailed: ({ error }) => void failures.push(error.message) });
        watcher.addMessage({ id: 'user-1', role: 'user', content: 'Pay 5' });
        await watcher.runAgent();
        const [interrupt] = watcher.pendingInterrupts;
        expect(interrupt).toBeDefined();
        await watcher.runAgent({
          resume: [{ interruptId: interrupt!.id, status: 'resolved', payload: { approved: true } }],
        });
        expect(watcher.pendingInterrupts).toEqual([]);
        const reloaded = new RunlightAgent({ url: server.url, runId: watcher.runId! });
        reloaded.subscribe({ onRunFailed: ({ error }) => void failures.push(error.message) });
        await reloaded.connectAgent();
        expect(failures).toEqual([]);
        expect(reloaded.pendingInterrupts).toEqual([]);
        expect(withoutMetadata(reloaded.messages)).toEqual(withoutMetadata(watcher.messages));
        const texts = reloaded.messages.flatMap((m) =>
          m.role === 'assistant' && typeof m.content === 'string' ? [m.content] : [],
        );
        expect(texts).toEqual(['Paying 5 once you approve.', 'Paid 5.']);
      } finally {
        await server.close();
      }
    }, 120_000);
  },
);
