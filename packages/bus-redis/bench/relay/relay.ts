/**
 * `pnpm bench:relay`: what Runlight's gateway costs per delivered delta against a bare relay of
 * the same bus. One runner process publishes live deltas (~20-byte texts, round robin over
 * `--runs` runs) at each rate; a gateway process (Runlight's bus + run handlers + SSE) and a bare
 * relay process (`bare-relay.ts`: reads the same Redis streams or LISTEN channel, writes the same
 * SSE frames, validates nothing) relay them side by side: both follow the same runs at the same
 * moment, so a change of load on the machine lands on both sides of the ratio. On each bus
 * (PostgreSQL LISTEN/NOTIFY at `DATABASE_URL` or 127.0.0.1:5432 `test`, Redis Streams at
 * `REDIS_URL` or 127.0.0.1:6379),
 * with 0, 1 and 5 SSE clients per run (the clients read in this process). Each turn follows
 * fresh runs, so every turn starts from empty buffers.
 *
 *   pnpm bench:relay                                    # rates 2k,4k,8k; clients 0,1,5; 3 s turns
 *   pnpm bench:relay --rates 8000 --clients 5 --only redis --step 5
 *   pnpm bench:relay --trim 250     # the gateway drops its live-delta buffers every 250 ms
 *
 * Columns: CPU ms per 1,000 delivered deltas of the gateway and of the bare relay (the process's
 * user + system CPU over the turn, drain included), `ratio` gateway ÷ bare, p50/p99 publish →
 * delivery (ms; at the SSE clients, or in the process with 0 clients), `delivered` the share
 * of published deltas × clients that arrived (the lower side's), the 1-minute load average.
 * `RELAY_CPU_PROF=<dir>` writes a `--cpu-prof` profile of every child.
 */
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { migrate } from '@runlight/store-postgres';
import pg from 'pg';
import { createClient } from 'redis';
import { type BenchChild, forkBenchChild } from '../bench-child';
import type { BusKind } from '../bus/open-bus';
import type {
  Counted,
  Following,
  Published,
  RelayChildConfig,
  Reported,
  ToRelayChild,
} from './relay-child';
import { SseWatchers } from './sse-watchers';

const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1]! : fallback;
};
const rates = option('rates', '2000,4000,8000').split(',').map(Number);
const clientCounts = option('clients', '0,1,5').split(',').map(Number);
const stepMs = Number(option('step', '3')) * 1_000;
const runCount = Number(option('runs', '20'));
const only = option('only', 'postgres,redis').split(',');
const trimMs = Number(option('trim', '0'));

const CHILD = fileURLToPath(new URL('./relay-child.ts', import.meta.url));
const PG_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const TAG = randomBytes(3).toString('hex');
const REDIS_PREFIX = `${process.env.RUNLIGHT_BENCH_REDIS_PREFIX ?? 'rl:bench:'}${TAG}:`;

type Child = BenchChild<ToRelayChild>;

const spawnChild = (config: RelayChildConfig): Promise<Child> =>
  forkBenchChild<ToRelayChild>(CHILD, config, {
    execArgv: process.env.RELAY_CPU_PROF
      ? ['--cpu-prof', `--cpu-prof-dir=${process.env.RELAY_CPU_PROF}`]
      : [],
  });

interface Fleet {
  name: string;
  runner: Child;
  gateway: Child;
  bare: Child;
}

interface Turn {
  cpuPer1000: number;
  p50: number;
  p99: number;
  delivered: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const quantile = (values: number[], q: number) => {
  const sorted = values.sort((a, b) => a - b);
  return sorted.length === 0
    ? Number.NaN
    : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
};
let turnNumber = 0;

interface Side {
  relay: Child;
  watchers: SseWatchers;
}

/**
 * Both sides relay the same `rate` deltas/s of the same runs for a step, at the same moment, to
 * `clients` SSE clients per run each: the runner publishes every delta once, the gateway and the
 * bare relay read it from the same bus. Load that comes and goes on the machine lands on both
 * sides of the ratio alike (turns a few seconds apart put it on one side only).
 */
async function turn(fleet: Fleet, rate: number, clients: number) {
  const runIds = Array.from(
    { length: runCount },
    (_, index) => `${fleet.name}-${++turnNumber}-${index}`,
  );
  const sides: Record<'gateway' | 'bare', Side> = {
    gateway: { relay: fleet.gateway, watchers: new SseWatchers() },
    bare: { relay: fleet.bare, watchers: new SseWatchers() },
  };
  const both = Object.values(sides);
  await Promise.all(
    both.map(async (side) => {
      const { port } = await side.relay.ask<Following>(
        { type: 'follow', runIds, clients },
        'following',
      );
      if (clients > 0) await side.watchers.open(port, runIds, clients);
    }),
  );
  await sleep(300); // streams caught up, the bus names the new runs
  for (const side of both) side.watchers.measure();
  await Promise.all(both.map((side) => side.relay.ask({ type: 'measure' }, 'measuring')));
  const published = await fleet.runner.ask<Published>(
    { type: 'publish', runIds, rate, durationMs: stepMs },
    'published',
  );
  const expected = published.published * Math.max(clients, 1);
  const received = async (side: Side) =>
    clients > 0
      ? side.watchers.received
      : (await side.relay.ask<Counted>({ type: 'count' }, 'counted')).received;
  const drained = async () =>
    (await Promise.all(both.map(received))).every((count) => count >= expected);
  for (let waited = 0; waited < 5_000 && !(await drained()); waited += 50) {
    await sleep(50);
  }
  const results = {} as Record<'gateway' | 'bare', Turn>;
  for (const [name, side] of Object.entries(sides) as ['gateway' | 'bare', Side][]) {
    const report = await side.relay.ask<Reported>({ type: 'report' }, 'reported');
    const latencies = clients > 0 ? side.watchers.latencies : report.latencies;
    results[name] = {
      cpuPer1000: (report.cpuMs / published.published) * 1_000,
      p50: quantile(latencies, 0.5),
      p99: quantile(latencies, 0.99),
      delivered: (await received(side)) / expected,
    };
    side.watchers.close();
  }
  await Promise.all(both.map((side) => side.relay.ask({ type: 'unfollow' }, 'unfollowed')));
  // The runs end (a terminal status would say so): the PostgreSQL bus, which hears every run of
  // the deployment, drops their live deltas in the gateway.
  fleet.gateway.process.send({ type: 'ended', runIds } satisfies ToRelayChild);
  return { results, publishedPerSecond: (published.published / published.elapsedMs) * 1_000 };
}

async function openFleet(name: string, bus: BusKind): Promise<Fleet> {
  const [gateway, bare, runner] = await Promise.all(
    (['gateway', 'bare', 'runner'] as const).map((role) => spawnChild({ role, bus, trimMs })),
  );
  const fleet = { name, runner: runner!, gateway: gateway!, bare: bare! };
  // Warm-up (JIT, connections): both sides, 2 s at 2,000 deltas/s with one client, not shown.
  await turn(fleet, 2_000, 1);
  return fleet;
}

async function closeFleet(fleet: Fleet): Promise<void> {
  const children = [fleet.runner, fleet.gateway, fleet.bare];
  const exited = children.map((c) => new Promise((resolve) => c.process.once('exit', resolve)));
  for (const child of children) child.process.send({ type: 'close' } satisfies ToRelayChild);
  await Promise.all(exited);
}

const ms = (value: number) => value.toFixed(1).padStart(7);
const fleets: Fleet[] = [];
const schema = `rl_bench_relay_${TAG}`;
const admin = new pg.Pool({ connectionString: PG_URL, max: 1 });
const ratios: number[] = [];
try {
  console.log(
    `relay bench: ${runCount} runs, ${stepMs / 1_000} s per turn; gateway and bare relay follow the same stream at the same moment`,
  );
  if (only.includes('postgres')) {
    await migrate(admin, { schema });
    const bus: BusKind = { kind: 'postgres', connectionString: PG_URL, schema };
    fleets.push(await openFleet('postgres', bus));
  }
  if (only.includes('redis')) {
    fleets.push(
      await openFleet('redis', { kind: 'redis', url: REDIS_URL, keyPrefix: REDIS_PREFIX }),
    );
  }
  console.log(
    '\nbus       deltas/s  clients  gateway ms/1k  bare ms/1k  ratio   gw p50  gw p99  bare p50 bare p99  delivered  load',
  );
  for (const rate of rates) {
    for (const clients of clientCounts) {
      for (const fleet of fleets) {
        const { results, publishedPerSecond: published } = await turn(fleet, rate, clients);
        const { gateway, bare } = results;
        const ratio = gateway.cpuPer1000 / bare.cpuPer1000;
        ratios.push(ratio);
        console.log(
          [
            fleet.name.padEnd(9),
            published.toFixed(0).padStart(9),
            String(clients).padStart(9),
            gateway.cpuPer1000.toFixed(1).padStart(15),
            bare.cpuPer1000.toFixed(1).padStart(12),
            `${ratio.toFixed(2)}×`.padStart(7),
            ms(gateway.p50),
            ms(gateway.p99),
            ms(bare.p50).padStart(9),
            ms(bare.p99).padStart(9),
            `${(Math.min(gateway.delivered, bare.delivered) * 100).toFixed(1)}%`.padStart(11),
            loadavg()[0]!.toFixed(1).padStart(6),
          ].join(''),
        );
      }
    }
  }
} finally {
  for (const fleet of fleets) await closeFleet(fleet);
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => {});
  await admin.end();
  const redis = createClient({ url: REDIS_URL });
  redis.on('error', () => {});
  await redis.connect().catch(() => {});
  if (redis.isOpen) {
    for await (const keys of redis.scanIterator({ MATCH: `${REDIS_PREFIX}*`, COUNT: 1_000 })) {
      if (keys.length > 0) await redis.del(keys);
    }
    await redis.close();
  }
}
if (ratios.length > 0) {
  console.log(
    `\nratio gateway ÷ bare: ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}× (goal ≤ 1.5×)`,
  );
}
