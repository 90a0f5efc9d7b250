/**
 * `pnpm bench:latency`: how long a token takes from the runner to a watcher behind a gateway.
 * One runner process (the real runtime on `@runlight/store-postgres`: admission, checkpoints,
 * the store and the bus) executes `--runs` runs at once, each on a model that streams `--tokens`
 * text deltas `--token-ms` apart, every delta's text the runner's clock when the model yielded
 * it; a gateway process (`startGateway`) serves them; one SSE client per run in this process
 * reads `GET /api/runs/:id/events` and times each delta (publish → watcher, one machine, one
 * clock). Both buses in one invocation, one after the other: PostgreSQL LISTEN/NOTIFY
 * (`DATABASE_URL` or 127.0.0.1:5432 `test`) and Redis Streams (`REDIS_URL` or 127.0.0.1:6379).
 *
 *   pnpm bench:latency                            # 20 runs × 200 tokens 20 ms apart, 2 rounds
 *   pnpm bench:latency --only redis --rounds 5
 *   pnpm bench:latency --checkpoint-every 100000  # no mid-answer checkpoints (a comparison)
 *
 * Prints per bus and round: deltas received of expected, p50 / p90 / p99 / max in ms, and the
 * 1-minute load average (a figure from a loaded machine says so).
 */
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { migrate } from '@runlight/store-postgres';
import pg from 'pg';
import { createClient } from 'redis';
import { forkBenchChild } from '../bench-child';
import { SseWatchers } from '../relay/sse-watchers';
import type { LatencyChildConfig, ToLatencyChild } from './latency-child';

const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1]! : fallback;
};
const runCount = Number(option('runs', '20'));
const tokens = Number(option('tokens', '200'));
const tokenMs = Number(option('token-ms', '20'));
const rounds = Number(option('rounds', '2'));
const only = option('only', 'postgres,redis').split(',') as ('postgres' | 'redis')[];
const checkpointEvery = Number(option('checkpoint-every', '0'));

const CHILD = fileURLToPath(new URL('./latency-child.ts', import.meta.url));
const PG_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const TAG = randomBytes(3).toString('hex');
const SCHEMA = `rl_bench_latency_${TAG}`;
const KEY_PREFIX = `rl:bench:latency:${TAG}:`;

const spawnChild = (config: LatencyChildConfig) =>
  forkBenchChild<ToLatencyChild, { origin?: string }>(CHILD, config, {
    env: { ...process.env, DATABASE_URL: PG_URL },
  });

const quantile = (sorted: readonly number[], q: number) =>
  sorted.length === 0
    ? Number.NaN
    : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
const ms = (value: number) => value.toFixed(1).padStart(8);

async function benchBus(bus: 'postgres' | 'redis'): Promise<void> {
  const config = {
    bus,
    schema: SCHEMA,
    redisUrl: REDIS_URL,
    keyPrefix: KEY_PREFIX,
    ...(checkpointEvery > 0 ? { checkpointEveryEvents: checkpointEvery } : {}),
  };
  const [gateway, runner] = await Promise.all([
    spawnChild({ ...config, role: 'gateway' }),
    spawnChild({ ...config, role: 'runner' }),
  ]);
  const port = Number(new URL(gateway.origin!).port);
  try {
    // Round 0 warms up (JIT, connections) and is not shown.
    for (let round = 0; round <= rounds; round++) {
      const runIds = Array.from({ length: runCount }, (_, n) => `${bus}-${TAG}-${round}-${n}`);
      await runner.ask({ type: 'create', runIds }, 'created');
      const watchers = new SseWatchers();
      await watchers.open(port, runIds, 1, '/api');
      await runner.ask({ type: 'run', runIds, tokens, tokenMs }, 'ran');
      const expected = runCount * tokens;
      for (let waited = 0; waited < 5_000 && watchers.received < expected; waited += 50) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      watchers.close();
      if (round === 0) continue;
      const sorted = watchers.latencies.sort((a, b) => a - b);
      console.log(
        [
          bus.padEnd(9),
          String(round).padStart(5),
          `${watchers.received}/${expected}`.padStart(12),
          ms(quantile(sorted, 0.5)),
          ms(quantile(sorted, 0.9)),
          ms(quantile(sorted, 0.99)),
          ms(sorted.at(-1) ?? Number.NaN),
          loadavg()[0]!.toFixed(1).padStart(6),
        ].join(''),
      );
    }
  } finally {
    await Promise.all(
      [gateway, runner].map(
        (child) =>
          new Promise((resolve) => {
            child.process.once('exit', resolve);
            child.process.send({ type: 'close' } satisfies ToLatencyChild);
          }),
      ),
    );
  }
}

const admin = new pg.Pool({ connectionString: PG_URL, max: 1 });
try {
  await migrate(admin, { schema: SCHEMA });
  console.log(
    `latency bench: ${runCount} runs × ${tokens} tokens ${tokenMs} ms apart, runner → gateway → SSE client` +
      (checkpointEvery > 0 ? `, checkpoint every ${checkpointEvery} events` : ''),
  );
  console.log('\nbus       round   received   p50 ms   p90 ms   p99 ms   max ms  load');
  for (const bus of only) await benchBus(bus);
} finally {
  await admin.query(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`).catch(() => {});
  await admin.end();
  const redis = createClient({ url: REDIS_URL });
  redis.on('error', () => {});
  await redis.connect().catch(() => {});
  if (redis.isOpen) {
    for await (const keys of redis.scanIterator({ MATCH: `${KEY_PREFIX}*`, COUNT: 1_000 })) {
      if (keys.length > 0) await redis.del(keys);
    }
    await redis.close();
  }
}
