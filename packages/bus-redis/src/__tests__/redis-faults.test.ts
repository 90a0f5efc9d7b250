import type { RunEvent } from '@runlight/protocol';
import { createAgentRuntime } from '@runlight/runtime';
import { scriptedModel } from '@runlight/runtime/testing';
import { startGateway } from '@runlight/store-postgres';
import { describe, expect, it, vi } from 'vitest';
import { delta, follow, startRun } from './bus-fixtures';
import { ownRedisWorld } from './own-redis-world';
import { postgresUnavailable } from './postgres-store';
import { adminClient, ownRedisUnavailable } from './redis-test-server';
import { followRun, gapsOf } from './sse-follower';

/**
 * Frequent liveness checks with a reply window a loaded machine keeps (500 ms once timed out a
 * connect under CI's load): every fault here closes the socket, which is noticed at once.
 */
const QUICK = { livenessIntervalMs: 200, livenessTimeoutMs: 5_000 };

describe.runIf(postgresUnavailable === null && ownRedisUnavailable === null)(
  `the Redis event bus across Redis faults (a redis-server of its own${ownRedisUnavailable ? `; not run: ${ownRedisUnavailable}` : ''})`,
  () => {
    const world = ownRedisWorld(QUICK);
    const openBus = (name: string) => world.openBus({ clientOptions: { name } });
    const { closing, prefix } = world;

    it('resumes a killed reading connection from the last entry id it read: no delta is lost', async () => {
      const a = await openBus('rl-runner');
      const b = await openBus('rl-gateway');
      const run = await startRun(world.database.store);
      const onB = follow(b, run.runId);
      for (let seq = 1; seq <= 50; seq++) a.publish(delta(run.runId, 0, seq));
      await vi.waitFor(() => expect(onB.seen).toHaveLength(50));
      const admin = await adminClient(world.redis.url);
      try {
        // Every connection of the gateway's bus, as a proxy's idle timeout or a failover ends them.
        const clients = String(await admin.client.sendCommand(['CLIENT', 'LIST']));
        const ids = [...clients.matchAll(/id=(\d+) [^\n]* name=rl-gateway /g)].map((m) => m[1]!);
        expect(ids).toHaveLength(2);
        for (const id of ids) await admin.client.sendCommand(['CLIENT', 'KILL', 'ID', id]);
      } finally {
        await admin.close();
      }
      // Published while B reconnects: B reads them from its stream, after the last id it read.
      for (let seq = 51; seq <= 150; seq++) a.publish(delta(run.runId, 0, seq));
      const labels = Array.from({ length: 150 }, (_, index) => `d0.${index + 1}`);
      const deltasOnB = () => onB.seen.filter((seen) => seen.startsWith('d'));
      await vi.waitFor(() => expect(deltasOnB()).toEqual(labels), { timeout: 30_000 });
      // Hearing again, it read the run's durable events from the store (r1, r2): none missed.
      expect(onB.seen.filter((seen) => seen.startsWith('r'))).toEqual(['r1', 'r2']);
      await vi.waitFor(() => expect(b.health()).toBe('live'));
      expect(b.errors.length).toBeGreaterThan(0); // each loss reported, none unhandled
      expect(a.errors).toEqual([]);
    });

    it('closes while Redis is down: what it could not send is reported, not waited on forever', async () => {
      const a = await openBus('rl-runner');
      const run = await startRun(world.database.store);
      await world.redis.stop();
      a.publish(delta(run.runId, 0, 1));
      await a.close();
      expect(a.errors.some((error) => String(error).includes('before close'))).toBe(true);
      await world.redis.start();
    });

    it('keeps a watcher on the gateway gap-free through a Redis restart mid-run', async () => {
      const runnerBus = await openBus('rl-runner');
      const gatewayBus = await openBus('rl-gateway');
      const runner = createAgentRuntime({
        store: world.database.store,
        events: runnerBus,
        owner: 'runner-a',
      });
      closing.push(() => runner.close());
      const gateway = await startGateway({
        store: world.database.store,
        bus: gatewayBus,
        exposeInternals: true,
        authorize: 'public',
      });
      closing.push(() => gateway.close());
      const runId = `redis-restart-${prefix}`;
      await world.database.store.createRun({ runId });
      const published: RunEvent[] = [];
      runner.subscribe(runId, (event) => published.push(event));
      const watcher = followRun(gateway.origin, runId);
      const text = Array.from({ length: 300 }, (_, index) => `w${index % 89} `);
      const done = runner.startRun({
        runId,
        model: scriptedModel([{ firstTokenMs: 20, tokenMs: 10, text }]),
        messages: [{ role: 'user', content: 'Go' }],
      }).done;
      await vi.waitFor(
        () =>
          expect(published.filter((event) => event.type === 'run-delta').length).toBeGreaterThan(
            40,
          ),
        { timeout: 20_000, interval: 10 },
      );
      await world.redis.restart();
      const run = await done;
      expect(run.status).toBe('completed');
      const followed = await watcher;
      // Every durable event arrived in order, or a reset reloaded past it: no gap.
      expect(gapsOf(followed)).toEqual([]);
      expect(followed.durable.at(-1)).toEqual(
        (await world.database.store.readEvents(runId)).at(-1),
      );
      const snapshot = await world.database.store.getSnapshot(runId);
      expect(snapshot.assistant?.message.parts).toContainEqual(
        expect.objectContaining({ type: 'text', text: text.join('') }),
      );
      expect(gatewayBus.healths).toContain('deaf');
      expect(gatewayBus.health()).toBe('live');
      expect(gatewayBus.errors.length).toBeGreaterThan(0);
    });
  },
);
