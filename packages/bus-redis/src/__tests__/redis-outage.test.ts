import type { RunEventSourceHealth } from '@runlight/runtime';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  createRedisEventBus,
  RedisBusOutageError,
  type RedisEventBus,
  type RedisEventBusOptions,
} from '../index';
import { RECONNECT_DELAY_CAP_MS } from '../redis-connection';
import { delta, follow, startRun } from './bus-fixtures';
import { openPostgresStore, postgresUnavailable } from './postgres-store';
import { freshPrefix, ownRedisUnavailable, startOwnRedis } from './redis-test-server';

const QUICK = { livenessIntervalMs: 200, livenessTimeoutMs: 500 };
const phaseOf = (error: unknown) =>
  RedisBusOutageError.isInstance(error) ? error.phase : `not an outage: ${String(error)}`;
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe.runIf(postgresUnavailable === null && ownRedisUnavailable === null)(
  `a Redis outage as the bus reports it (a redis-server of its own${ownRedisUnavailable ? `; not run: ${ownRedisUnavailable}` : ''})`,
  () => {
    let database: Awaited<ReturnType<typeof openPostgresStore>>;
    let redis: Awaited<ReturnType<typeof startOwnRedis>>;
    const prefix = freshPrefix();
    const closing: (() => Promise<void>)[] = [];
    beforeAll(async () => {
      database = await openPostgresStore();
      redis = await startOwnRedis();
    });
    afterEach(async () => {
      for (const close of closing.splice(0).reverse()) await close();
    });
    afterAll(async () => {
      await redis?.stop();
      await database?.close();
    });

    const openBus = async (extra: Partial<RedisEventBusOptions> = {}) => {
      const errors: unknown[] = [];
      const healths: RunEventSourceHealth[] = [];
      const bus = await createRedisEventBus({
        url: redis.url,
        store: database.store,
        keyPrefix: prefix,
        onError: (error) => errors.push(error),
        ...QUICK,
        ...extra,
      });
      bus.onHealthChange((health) => healths.push(health));
      closing.push(() => bus.close());
      return Object.assign(bus, { errors, healths }) as RedisEventBus & {
        errors: unknown[];
        healths: RunEventSourceHealth[];
      };
    };

    it('reports an outage once per process when it starts and once when it ends — not once per dropped delta — and is back after Redis', async () => {
      // A sending queue of 10 commands: what the runner publishes past it while Redis is down
      // is dropped, one failed command per delta.
      const runner = await openBus({ maxQueuedCommands: 10 });
      const gateway = await openBus();
      const run = await startRun(database.store);
      const watched = follow(gateway, run.runId);
      runner.publish(delta(run.runId, 0, 1));
      await vi.waitFor(() => expect(watched.seen).toEqual(['d0.1']));

      await redis.stop();
      await vi.waitFor(() => {
        expect(runner.health()).toBe('deaf');
        expect(gateway.health()).toBe('deaf');
      });
      for (let seq = 2; seq <= 201; seq++) {
        runner.publish(delta(run.runId, 0, seq)); // each in a turn of its own: an XADD each
        await nextTurn();
      }
      await new Promise((resolve) => setTimeout(resolve, 1_500)); // failures keep coming
      // Until Redis is back: one report per process, the outage's start.
      expect(runner.errors.map(phaseOf)).toEqual(['started']);
      expect(gateway.errors.map(phaseOf)).toEqual(['started']);

      await redis.start();
      // Both sides of both processes reconnect (node-redis retries at most
      // RECONNECT_DELAY_CAP_MS apart, the reading loop reads the moment its connection is ready).
      await vi.waitFor(
        () => {
          expect(runner.health()).toBe('live');
          expect(gateway.health()).toBe('live');
        },
        { timeout: 10_000 },
      );
      runner.publish(delta(run.runId, 0, 202));
      await vi.waitFor(() => expect(watched.seen).toContain('d0.202'));
      await vi.waitFor(() => expect(runner.errors.map(phaseOf)).toEqual(['started', 'ended']));
      expect(gateway.errors.map(phaseOf)).toEqual(['started', 'ended']);

      const [started, ended] = runner.errors as RedisBusOutageError[];
      expect(ended!.startedAt).toEqual(started!.startedAt);
      expect(ended!.durationMs).toBeGreaterThanOrEqual(1_500);
      // 200 deltas published while down, at most 10 commands queued: the rest counted dropped.
      expect(ended!.droppedDeltas).toBeGreaterThanOrEqual(190);
      expect(ended!.droppedDeltas).toBeLessThanOrEqual(200);
      expect(ended!.failures).toBeGreaterThanOrEqual(ended!.droppedDeltas);
      expect((gateway.errors[1] as RedisBusOutageError).droppedDeltas).toBe(0);
      expect(gateway.healths).toEqual(['deaf', 'live']);
      expect(RECONNECT_DELAY_CAP_MS).toBeLessThanOrEqual(1_000);
    });
  },
);
