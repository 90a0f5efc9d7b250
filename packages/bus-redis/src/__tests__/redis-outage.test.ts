import { describe, expect, it, vi } from 'vitest';
import { RedisBusOutageError } from '../index';
import { RECONNECT_DELAY_CAP_MS } from '../redis-connection';
import { delta, follow, startRun } from './bus-fixtures';
import { ownRedisWorld } from './own-redis-world';
import { postgresUnavailable } from './postgres-store';
import { ownRedisUnavailable } from './redis-test-server';

/**
 * Liveness only as a hang bound: the outage is a killed server, which both connections hear as
 * a closed socket at once, and after a loss the first read does not block. Tight deadlines
 * (a 200 ms block, 500 ms more for its reply) made a loaded machine's late reply an outage of its own.
 */
const LIVENESS = { livenessIntervalMs: 1_000, livenessTimeoutMs: 30_000 };
/** Waits for a condition the bus reaches by events; the timeout only bounds a hang. */
const until = <T>(check: () => T) => vi.waitFor(check, { timeout: 60_000, interval: 20 });
const phaseOf = (error: unknown) =>
  RedisBusOutageError.isInstance(error) ? error.phase : `not an outage: ${String(error)}`;
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe.runIf(postgresUnavailable === null && ownRedisUnavailable === null)(
  `a Redis outage as the bus reports it (a redis-server of its own${ownRedisUnavailable ? `; not run: ${ownRedisUnavailable}` : ''})`,
  () => {
    const world = ownRedisWorld(LIVENESS);
    const { openBus } = world;

    it('reports an outage once per process when it starts and once when it ends — not once per dropped delta — and is back after Redis', async () => {
      // A sending queue of 10 commands: what the runner publishes past it while Redis is down
      // is dropped, one failed command per delta.
      const runner = await openBus({ maxQueuedCommands: 10 });
      const gateway = await openBus();
      const run = await startRun(world.database.store);
      const watched = follow(gateway, run.runId);
      runner.publish(delta(run.runId, 0, 1));
      await until(() => expect(watched.seen).toEqual(['d0.1']));

      await world.redis.stop();
      await until(() => {
        expect(runner.health()).toBe('deaf');
        expect(gateway.health()).toBe('deaf');
      });
      // Both outages have started by now; neither can end before Redis is started again.
      const deafAt = performance.now();
      for (let seq = 2; seq <= 201; seq++) {
        runner.publish(delta(run.runId, 0, seq)); // each in a turn of its own: an XADD each
        await nextTurn();
      }
      // Past the queue of 10 every delta was a failed command (190 failures at least), yet
      // until Redis is back there is one report per process: the outage's start.
      expect(runner.errors.map(phaseOf)).toEqual(['started']);
      expect(gateway.errors.map(phaseOf)).toEqual(['started']);
      const restartedAt = performance.now();

      await world.redis.start();
      // Both sides of both processes reconnect (node-redis retries at most
      // RECONNECT_DELAY_CAP_MS apart, the reading loop reads the moment its connection is ready).
      await until(() => {
        expect(runner.health()).toBe('live');
        expect(gateway.health()).toBe('live');
      });
      runner.publish(delta(run.runId, 0, 202));
      await until(() => expect(watched.seen).toContain('d0.202'));
      await until(() => expect(runner.errors.map(phaseOf)).toEqual(['started', 'ended']));
      await until(() => expect(gateway.errors.map(phaseOf)).toEqual(['started', 'ended']));

      const [started, ended] = runner.errors as RedisBusOutageError[];
      expect(ended!.startedAt).toEqual(started!.startedAt);
      // It lasted from before the bus went deaf until after Redis was started again.
      expect(ended!.durationMs).toBeGreaterThanOrEqual(restartedAt - deafAt);
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
