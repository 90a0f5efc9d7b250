import { performance } from 'node:perf_hooks';
import type { RunEventSourceHealth } from '@runlight/runtime';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { createRedisEventBus, type RedisEventBus, type RedisEventBusOptions } from '../index';
import { openPostgresStore } from './postgres-store';
import { freshPrefix, startOwnRedis } from './redis-test-server';

/** A bus of the world's, with what it reported: its errors and its health changes. */
export type RecordedBus = RedisEventBus & {
  errors: unknown[];
  healths: RunEventSourceHealth[];
  /** When each of `healths` reached the listener (`performance.now()`). */
  healthAt: number[];
};

/**
 * For a describe block whose faults hit Redis itself: a redis-server of its own and the
 * PostgreSQL store, opened before the block and stopped after it; every bus and runtime a test
 * opened (`openBus`, `closing`) is closed after that test, last opened first.
 *
 * @example
 * const world = ownRedisWorld({ livenessIntervalMs: 200 });
 * it('…', async () => {
 *   const runner = await world.openBus({ clientOptions: { name: 'rl-runner' } });
 *   await world.redis.stop();
 * });
 */
export function ownRedisWorld(defaults: Partial<RedisEventBusOptions> = {}) {
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
  return {
    get database() {
      return database;
    },
    get redis() {
      return redis;
    },
    prefix,
    closing,
    /** A bus on the world's Redis and store, the defaults, then `options`. */
    async openBus(options: Partial<RedisEventBusOptions> = {}): Promise<RecordedBus> {
      const errors: unknown[] = [];
      const healths: RunEventSourceHealth[] = [];
      const healthAt: number[] = [];
      const bus = await createRedisEventBus({
        url: redis.url,
        store: database.store,
        keyPrefix: prefix,
        onError: (error) => errors.push(error),
        ...defaults,
        ...options,
      });
      bus.onHealthChange((health) => {
        healths.push(health);
        healthAt.push(performance.now());
      });
      closing.push(() => bus.close());
      return Object.assign(bus, { errors, healths, healthAt });
    },
  };
}
