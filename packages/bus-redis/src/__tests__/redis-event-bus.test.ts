import { ProtocolValidationError } from '@runlight/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRedisEventBus, type RedisEventBus, type RedisEventBusOptions } from '../index';
import { delta, follow, label, startRun } from './bus-fixtures';
import { openPostgresStore, postgresUnavailable } from './postgres-store';
import {
  adminClient,
  freshPrefix,
  REDIS_URL,
  redisLabel,
  redisUnavailable,
} from './redis-test-server';

describe.runIf(redisUnavailable === null && postgresUnavailable === null)(
  `the Redis event bus (${redisLabel}, store on PostgreSQL)`,
  () => {
    let database: Awaited<ReturnType<typeof openPostgresStore>>;
    let admin: Awaited<ReturnType<typeof adminClient>>;
    const prefix = freshPrefix();
    const buses: RedisEventBus[] = [];
    const errors: unknown[] = [];

    beforeAll(async () => {
      database = await openPostgresStore();
      admin = await adminClient();
    });
    afterEach(async () => {
      await Promise.all(buses.splice(0).map((bus) => bus.close()));
      expect(errors.splice(0)).toEqual([]);
    });
    afterAll(async () => {
      await admin?.dropKeys(prefix);
      await admin?.close();
      await database?.close();
    });

    const openBus = async (extra: Partial<RedisEventBusOptions> = {}) => {
      const bus = await createRedisEventBus({
        url: REDIS_URL,
        store: database.store,
        keyPrefix: prefix,
        onError: (error) => errors.push(error),
        ...extra,
      });
      buses.push(bus);
      return bus;
    };

    it('announces a control request to every other process, once, and not one recorded before it started', async () => {
      const early = await openBus();
      early.notifyControlRequest('run-before');
      await early.flushed();
      const [a, b, c] = [await openBus(), await openBus(), await openBus()];
      const heard = { a: [] as string[], b: [] as string[], c: [] as string[] };
      a.onControlRequest((runId) => heard.a.push(runId));
      b.onControlRequest((runId) => heard.b.push(runId));
      const stop = c.onControlRequest((runId) => heard.c.push(runId));
      stop();
      a.notifyControlRequest('run-1');
      a.notifyControlRequest('run-2');
      await vi.waitFor(() => expect(heard.b).toEqual(['run-1', 'run-2']));
      // Its own announcement: the store's in-process notification woke that runtime already.
      expect(heard.a).toEqual([]);
      expect(heard.c).toEqual([]);
    });

    it('gives a subscriber joining mid-answer the deltas since the last checkpoint, from the stream', async () => {
      const [a, b] = [await openBus(), await openBus()];
      const run = await startRun(database.store);
      a.publish(await run.operation());
      for (let seq = 1; seq <= 3; seq++) a.publish(delta(run.runId, 0, seq));
      a.publish(await run.checkpoint('t1t2t3'));
      a.publish(delta(run.runId, 4, 1));
      a.publish(delta(run.runId, 4, 2));
      await a.flushed();
      // B follows the run only now: it reads the run's stream from its start.
      const onB = follow(b, run.runId);
      await vi.waitFor(() => expect(b.liveDeltas(run.runId).map(label)).toEqual(['d4.1', 'd4.2']));
      expect(onB.seen).toContain('r4');
      a.publish(delta(run.runId, 4, 3));
      await vi.waitFor(() => expect(onB.seen.at(-1)).toBe('d4.3'));
      for (const event of await run.end()) a.publish(event);
      await vi.waitFor(() => expect(b.liveDeltas(run.runId)).toEqual([]));
      // Nobody follows it on B any more: nothing of it is kept there.
      onB.stop();
      expect(b.listenerCount(run.runId)).toBe(0);
    });

    it('carries a 40 kB delta and a burst of 2 000 deltas intact and in seq order', async () => {
      const [a, b] = [await openBus(), await openBus()];
      const run = await startRun(database.store);
      const onB = follow(b, run.runId);
      const big = delta(run.runId, 0, 1, 'ü'.repeat(20_000));
      a.publish(big);
      for (let seq = 2; seq <= 2_000; seq++) a.publish(delta(run.runId, 0, seq, `w${seq % 89} `));
      const labels = Array.from({ length: 2_000 }, (_, index) => `d0.${index + 1}`);
      await vi.waitFor(() => expect(onB.seen).toEqual(labels), { timeout: 20_000 });
      expect(onB.events[0]).toEqual(big);
    });

    it('reports a foreign entry on a run stream and keeps following', async () => {
      const seen: unknown[] = [];
      const b = await openBus({ onError: (error) => seen.push(error) });
      const a = await openBus();
      const run = await startRun(database.store);
      const onB = follow(b, run.runId);
      const key = `${prefix}run:${run.runId}`;
      await admin.client.xAdd(key, '*', { hello: 'world' });
      await admin.client.xAdd(key, '*', { i: 'x', d: 'not json' });
      await admin.client.xAdd(key, '*', { i: 'x', d: '{"type":"run-delta"}' });
      await admin.client.xAdd(key, '*', { i: 'x', p: '{"r":0,"t":"run-status"}' });
      // A list of deltas, one with a broken envelope: the structural check names the field.
      const broken =
        '[{"type":"run-delta","baseRevision":0,"seq":0,"chunk":{"type":"text-start"}}]';
      await admin.client.xAdd(key, '*', { i: 'x', d: broken });
      a.publish(delta(run.runId, 0, 1));
      await vi.waitFor(() => expect(onB.seen).toEqual(['d0.1']));
      expect(seen).toHaveLength(5);
      expect(ProtocolValidationError.isInstance(seen[4])).toBe(true);
      expect((seen[4] as ProtocolValidationError).issues.map((issue) => issue.path)).toEqual([
        'seq',
      ]);
    });

    it('proves it hears with every reply of a short blocking read, and stays live', async () => {
      const probing = { livenessIntervalMs: 10, livenessTimeoutMs: 1_000 };
      const [a, b] = [await openBus(probing), await openBus(probing)];
      const run = await startRun(database.store);
      const onB = follow(b, run.runId);
      const healths: string[] = [];
      b.onHealthChange((health) => healths.push(health));
      await new Promise((resolve) => setTimeout(resolve, 1_000)); // ~100 empty replies
      a.publish(delta(run.runId, 0, 1));
      await vi.waitFor(() => expect(onB.seen).toEqual(['d0.1']));
      expect([a.health(), b.health()]).toEqual(['live', 'live']);
      expect(healths).toEqual([]);
    });

    it('trims each run stream, and lets it expire once the run ended', async () => {
      const a = await openBus({ maxStreamLength: 100, endedRunTtlSeconds: 30 });
      const run = await startRun(database.store);
      // Each in a turn of its own: one entry each (one turn's deltas share an entry).
      for (let seq = 1; seq <= 400; seq++) {
        a.publish(delta(run.runId, 0, seq));
        await a.flushed();
      }
      const key = `${prefix}run:${run.runId}`;
      const length = await admin.client.xLen(key);
      expect(length).toBeGreaterThanOrEqual(100);
      expect(length).toBeLessThan(400);
      expect(await admin.client.ttl(key)).toBeGreaterThan(3_600); // while it executes: a day
      a.endRun(run.runId);
      await a.flushed();
      const ttl = await admin.client.ttl(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(30);
    });

    it('stops delivering after unsubscribe and after close', async () => {
      const [a, b] = [await openBus(), await openBus()];
      const run = await startRun(database.store);
      const onB = follow(b, run.runId);
      a.publish(delta(run.runId, 0, 1));
      await vi.waitFor(() => expect(onB.seen).toEqual(['d0.1']));
      onB.stop();
      expect(b.listenerCount(run.runId)).toBe(0);
      const again = follow(b, run.runId);
      await vi.waitFor(() => expect(again.seen).toEqual(['d0.1'])); // read again from the start
      await b.close();
      a.publish(delta(run.runId, 0, 2));
      await a.flushed();
      const witness = await openBus();
      const onWitness = follow(witness, run.runId);
      a.publish(delta(run.runId, 0, 3));
      await vi.waitFor(() => expect(onWitness.seen).toEqual(['d0.1', 'd0.2', 'd0.3']));
      expect(onB.seen).toEqual(['d0.1']);
      expect(again.seen).toEqual(['d0.1']);
    });
  },
);
