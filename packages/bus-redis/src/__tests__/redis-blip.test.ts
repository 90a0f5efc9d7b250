import { performance } from 'node:perf_hooks';
import { describe, expect, it, vi } from 'vitest';
import { RedisBusOutageError } from '../index';
import { delta, follow, startRun } from './bus-fixtures';
import { ownRedisWorld } from './own-redis-world';
import { postgresUnavailable } from './postgres-store';
import { adminClient, ownRedisUnavailable } from './redis-test-server';

/** The outage reports of a bus (`RedisBusOutageError`s), in order. */
const outages = (errors: unknown[]) => errors.filter(RedisBusOutageError.isInstance);
/** What started each outage, for a failure's message. */
const causes = (errors: unknown[]) =>
  outages(errors).map((error) => `${error.phase}: ${String(error.cause ?? '')}`);

/**
 * Readiness that follows Redis, with the bus's defaults (a 5 s `XREAD BLOCK`): an idle runner
 * follows no run stream, so before the reader's first read after a loss stopped blocking, its
 * health turned live only when a 5 s block over streams nobody writes expired.
 */
describe.runIf(postgresUnavailable === null && ownRedisUnavailable === null)(
  `bus health follows Redis, whatever streams a process follows (a redis-server of its own${ownRedisUnavailable ? `; not run: ${ownRedisUnavailable}` : ''})`,
  () => {
    const world = ownRedisWorld();
    const openBus = (name: string) => world.openBus({ clientOptions: { name } });

    /** How many `XREAD`s the server answered so far. */
    const xreadCalls = async () => {
      const admin = await adminClient(world.redis.url);
      try {
        const stats = String(await admin.client.sendCommand(['INFO', 'commandstats']));
        return Number(/cmdstat_xread:calls=(\d+)/.exec(stats)?.[1] ?? 0);
      } finally {
        await admin.close();
      }
    };

    it('a CLIENT KILL of an idle runner’s connections: live again on reconnecting, not after a 5 s block, the blip reported as one', async () => {
      const runner = await openBus('rl-blip-runner');
      const admin = await adminClient(world.redis.url);
      let killedAt: number;
      try {
        const clients = String(await admin.client.sendCommand(['CLIENT', 'LIST']));
        const ids = [...clients.matchAll(/id=(\d+) [^\n]* name=rl-blip-runner /g)].map(
          (m) => m[1]!,
        );
        expect(ids).toHaveLength(2);
        killedAt = performance.now();
        // Both at once (one transaction): one blip, however slowly this process sends commands.
        // Killed one command apiece, a loaded machine let the first reconnect before the second
        // kill arrived: two blips, each truthfully reported.
        const kill = admin.client.multi();
        for (const id of ids) kill.addCommand(['CLIENT', 'KILL', 'ID', id]);
        await kill.exec();
      } finally {
        await admin.close();
      }
      // Redis answers throughout: the runner hears again as soon as it has reconnected.
      await vi.waitFor(
        () =>
          expect(
            outages(runner.errors)
              .slice(0, 2)
              .map((e) => e.phase),
            causes(runner.errors).join('; '),
          ).toEqual(['started', 'ended']),
        { timeout: 20_000, interval: 20 },
      );
      // The health change may reach its listener just after the outage report.
      await vi.waitFor(() => expect(runner.healths.slice(0, 2)).toEqual(['deaf', 'live']), {
        timeout: 20_000,
        interval: 20,
      });
      const [deafAt, liveAt] = runner.healthAt;
      expect(deafAt).toBeGreaterThanOrEqual(killedAt);
      // Deaf for a reconnect (50 ms, doubling, capped at 1 s: about 50 ms on a quiet machine),
      // not until a fresh 5 s blocking read expires (the old behaviour: 5 s or more). A reconnect
      // slowed by a loaded machine stays far below that; a fixed 1 s bound did not.
      expect(liveAt! - deafAt!).toBeLessThan(5_000);
      const ended = outages(runner.errors)[1]!;
      expect(ended.durationMs).toBeLessThan(5_000);
      // Nothing after the blip: an idle runner's empty 5 s reads are no outage (node-redis's own
      // 5 s command timeout raced them). Waits for two reads after the one that heard again:
      // the first blocking read's empty reply came back.
      const reads = await xreadCalls();
      await vi.waitFor(async () => expect(await xreadCalls()).toBeGreaterThanOrEqual(reads + 2), {
        timeout: 30_000,
        interval: 200,
      });
      expect(outages(runner.errors), causes(runner.errors).join('; ')).toHaveLength(2);
    });

    it('a 12 s outage: reported as long as it was (±3 s); every delta sent meanwhile delivered, in order', async () => {
      const runner = await openBus('rl-outage-runner');
      const gateway = await openBus('rl-outage-gateway');
      const run = await startRun(world.database.store);
      const watched = follow(gateway, run.runId);
      runner.publish(delta(run.runId, 0, 1));
      await vi.waitFor(() => expect(watched.seen).toEqual(['d0.1']));

      const stoppedAt = performance.now();
      await world.redis.stop();
      await vi.waitFor(() => expect(runner.health()).toBe('deaf'), { timeout: 20_000 });
      // Deltas throughout the outage: one every 100 ms, as a streaming runner sends them.
      let seq = 1;
      const sending = setInterval(() => runner.publish(delta(run.runId, 0, ++seq)), 100);
      await new Promise((resolve) => setTimeout(resolve, 12_000));
      clearInterval(sending);
      await world.redis.start();
      const backAt = performance.now();
      await vi.waitFor(
        () => expect(outages(runner.errors).map((e) => e.phase)).toEqual(['started', 'ended']),
        { timeout: 20_000, interval: 20 },
      );
      const observedMs = backAt - stoppedAt;
      const reported = outages(runner.errors)[1]!;
      // The bus notices the stop at once (the socket closes) and reconnects within its capped
      // 1 s backoff; the slack is for a loaded machine, the 12 s are what is measured.
      expect(Math.abs(reported.durationMs! - observedMs)).toBeLessThanOrEqual(3_000);
      // The health change may reach its listener just after the outage report.
      await vi.waitFor(() => expect(runner.healths.at(-1)).toBe('live'), {
        timeout: 20_000,
        interval: 20,
      });
      // Live on reconnecting, not after a fresh 5 s blocking read.
      expect(runner.healthAt.at(-1)! - backAt).toBeLessThan(5_000);

      // Every delta sent while Redis was down was queued (within `maxQueuedMs`, 60 s, and
      // `maxQueuedCommands`) and arrives once it is back, in order: none dropped.
      const labels = Array.from({ length: seq }, (_, index) => `d0.${index + 1}`);
      const deltas = () => watched.seen.filter((label) => label.startsWith('d'));
      await vi.waitFor(() => expect(deltas()).toEqual(labels), { timeout: 20_000, interval: 50 });
      expect(reported.droppedDeltas).toBe(0);
      // The report says so: every delta published while down counted as sent, none dropped.
      expect(reported.sentDeltas).toBe(seq - 1);
      console.info(
        `12 s outage: ${seq - 1} deltas sent while down, ${deltas().length - 1} delivered, ${reported.droppedDeltas} dropped; reported ${Math.round(reported.durationMs!)} ms, observed ${Math.round(observedMs)} ms`,
      );
    }, 120_000);
  },
);
