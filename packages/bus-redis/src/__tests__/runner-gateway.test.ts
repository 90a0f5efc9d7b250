import type { RunEvent } from '@runlight/protocol';
import { createAgentRuntime } from '@runlight/runtime';
import { scriptedModel } from '@runlight/runtime/testing';
import { type Gateway, startGateway } from '@runlight/store-postgres';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRedisEventBus, type RedisEventBus } from '../index';
import { openPostgresStore, postgresUnavailable } from './postgres-store';
import {
  adminClient,
  freshPrefix,
  REDIS_URL,
  redisLabel,
  redisUnavailable,
} from './redis-test-server';
import { followRun, gapsOf } from './sse-follower';

const LONG_WORD = 'ü'.repeat(6_000); // one 12 kB delta

describe.runIf(redisUnavailable === null && postgresUnavailable === null)(
  `a runner and two gateways on the Redis bus (${redisLabel}, store on PostgreSQL)`,
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

    /** One process of the deployment: its own bus over the shared Redis and store. */
    const openBus = async () => {
      const bus = await createRedisEventBus({
        url: REDIS_URL,
        store: database.store,
        keyPrefix: prefix,
        onError: (error) => errors.push(error),
      });
      closing.push(() => bus.close());
      return bus;
    };
    const openGateway = async (bus: RedisEventBus) => {
      // The stored form: the test compares what a watcher gets with the store's log.
      const gateway = await startGateway({
        store: database.store,
        bus,
        exposeInternals: true,
        authorize: 'public',
      });
      closing.push(() => gateway.close());
      return gateway;
    };

    it('lets a watcher on either gateway follow, live, a run that only the runner executes', async () => {
      const runner = createAgentRuntime({
        store: database.store,
        events: await openBus(),
        owner: 'runner-a',
      });
      closing.push(() => runner.close());
      const gateways: Gateway[] = [
        await openGateway(await openBus()),
        await openGateway(await openBus()),
      ];
      const runId = `redis-scale-out-${prefix}`;
      await database.store.createRun({ runId });
      const published: RunEvent[] = [];
      runner.subscribe(runId, (event) => published.push(event));
      const watchers = gateways.map((gateway) => followRun(gateway.origin, runId));
      const words = `Streaming from runner A ${LONG_WORD} to watchers of gateways B and C, word by word.`;
      const run = await runner.startRun({
        runId,
        model: scriptedModel([{ firstTokenMs: 50, tokenMs: 5, text: words }]),
        messages: [{ role: 'user', content: 'Hi' }],
      }).done;
      expect(run.status).toBe('completed');
      const stored = await database.store.readEvents(runId);
      for (const followed of await Promise.all(watchers)) {
        expect(followed.resets).toEqual([]);
        // Every durable event, once, in revision order, equal to the store's log.
        expect(followed.durable).toEqual(stored);
        // Deltas are stored nowhere: the gateway could only have them from the runner.
        expect(followed.deltas).toEqual(published.filter((event) => event.type === 'run-delta'));
        expect(followed.deltas.length).toBeGreaterThan(10);
        expect(gapsOf(followed)).toEqual([]);
      }
    });

    it('shows a watcher opening on a gateway mid-answer the text so far at once', async () => {
      const runner = createAgentRuntime({
        store: database.store,
        events: await openBus(),
        owner: 'runner-a',
        checkpointEveryEvents: 1_000, // every delta builds on one checkpoint until the step ends
      });
      closing.push(() => runner.close());
      const gatewayBus = await openBus();
      const gateway = await openGateway(gatewayBus);
      const runId = `redis-reload-${prefix}`;
      const published: RunEvent[] = [];
      runner.subscribe(runId, (event) => published.push(event));
      const words = Array.from({ length: 40 }, (_, index) => `w${index}`).join(' ');
      const done = runner.startRun({
        runId,
        model: scriptedModel([{ tokenMs: 25, text: words }]),
        messages: [{ role: 'user', content: 'Count' }],
      }).done;
      await vi.waitFor(
        () =>
          expect(published.filter((event) => event.type === 'run-delta').length).toBeGreaterThan(
            10,
          ),
        { timeout: 20_000, interval: 10 },
      );
      // Nobody followed the run on the gateway yet: the watcher's subscription reads its stream.
      expect(gatewayBus.listenerCount(runId)).toBe(0);
      const snapshot = await (await fetch(`${gateway.origin}/runs/${runId}`)).json();
      const response = await fetch(
        `${gateway.origin}/runs/${runId}/events?after=${snapshot.revision}`,
      );
      const text = await response.text();
      expect((await done).status).toBe('completed');
      const base = snapshot.assistant?.revision ?? 0;
      const replayed = text
        .split('\n\n')
        .flatMap((block) => block.split('\n').filter((line) => line.startsWith('data:')))
        .map((line) => JSON.parse(line.slice(5)) as RunEvent)
        .filter((event) => event.type === 'run-delta' && event.baseRevision === base);
      // From seq 1, though the watcher connected after more than ten deltas were published.
      expect(replayed).toEqual(
        published.filter((event) => event.type === 'run-delta' && event.baseRevision === base),
      );
      expect(replayed[0]).toMatchObject({ seq: 1 });
    });
  },
);
