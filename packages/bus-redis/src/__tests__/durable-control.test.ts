import { randomBytes } from 'node:crypto';
import { createAgentRuntime, createAgentRuntimeStore } from '@runlight/runtime';
import { scriptedModel } from '@runlight/runtime/testing';
import { createPostgresDriver, startGateway } from '@runlight/store-postgres';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRedisEventBus } from '../index';
import { openPostgresStore, postgresUnavailable } from './postgres-store';
import {
  adminClient,
  freshPrefix,
  REDIS_URL,
  redisLabel,
  redisUnavailable,
} from './redis-test-server';

/**
 * The PostgreSQL bus's durable-control test (`store-postgres/.../durable-control.test.ts`) on
 * the Redis bus: a runner process and a gateway process, each its own store object (so the
 * store's in-process notification cannot carry the request) and its own bus.
 */
describe.runIf(redisUnavailable === null && postgresUnavailable === null)(
  `durable control requests on the Redis bus (${redisLabel}, store on PostgreSQL)`,
  () => {
    let database: Awaited<ReturnType<typeof openPostgresStore>>;
    const prefix = freshPrefix();
    const closing: (() => Promise<void>)[] = [];
    const errors: unknown[] = [];
    beforeAll(async () => {
      database = await openPostgresStore();
    });
    afterEach(async () => {
      for (const close of closing.splice(0).reverse()) await close();
      expect(errors.splice(0)).toEqual([]);
    });
    afterAll(async () => {
      const admin = await adminClient();
      await admin.dropKeys(prefix);
      await admin.close();
      await database?.close();
    });

    /** One process: a store object of its own on the shared database, a bus on the shared Redis. */
    const openProcess = async () => {
      const store = createAgentRuntimeStore(
        createPostgresDriver({ client: database.pool, schema: database.schema }),
      );
      const bus = await createRedisEventBus({
        url: REDIS_URL,
        store,
        keyPrefix: prefix,
        onError: (error) => errors.push(error),
      });
      closing.push(() => bus.close());
      return { store, bus };
    };

    it('a cancel recorded on the gateway reaches the runner through the bus, not its poll', async () => {
      const runnerSide = await openProcess();
      const gatewaySide = await openProcess();
      // A poll a minute apart: only the bus can bring the cancel in time.
      const runtime = createAgentRuntime({
        store: runnerSide.store,
        events: runnerSide.bus,
        owner: 'runner-notified',
        controlPollMs: 60_000,
      });
      closing.push(() => runtime.close());
      const gateway = await startGateway({
        store: gatewaySide.store,
        bus: gatewaySide.bus,
        authorize: 'public',
      });
      closing.push(() => gateway.close());
      const runId = `redis-notify-${randomBytes(4).toString('hex')}`;
      const text = Array.from({ length: 2_000 }, (_, i) => `w${i} `);
      const run = runtime.startRun({
        runId,
        model: scriptedModel([{ text, tokenMs: 10 }]),
        messages: [{ role: 'user', content: 'Go' }],
      });
      await run.created;
      // Past the start-time wake: the pump reads again only when notified.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const sent = Date.now();
      const response = await fetch(`${gateway.origin}/runs/${runId}/cancel`, { method: 'POST' });
      expect(response.status).toBe(202);
      const ended = await Promise.race([
        run.done,
        new Promise<null>((resolve) => setTimeout(() => resolve(null), 15_000)),
      ]);
      expect(ended?.status).toBe('cancelled');
      // 2,000 tokens at 10 ms would run 20 s, the next poll is a minute away: it ended on the
      // bus's word.
      expect(Date.now() - sent).toBeLessThan(15_000);
    });
  },
);
