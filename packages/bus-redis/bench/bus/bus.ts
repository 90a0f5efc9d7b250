/**
 * `pnpm bench:bus`: the ceiling of each run event bus. One runner process publishes live
 * deltas (round robin over `--runs` runs, ~4-byte tokens) at increasing rates; two gateway
 * processes follow every run. Both buses run in the same invocation on the same machine, their
 * fleets up side by side and taking turns at each rate (so both see the same machine load):
 * PostgreSQL LISTEN/NOTIFY (`createPostgresEventBus`, `DATABASE_URL` or 127.0.0.1:5432 `test`)
 * and Redis Streams (`createRedisEventBus`, `REDIS_URL` or 127.0.0.1:6379).
 *
 *   pnpm bench:bus                                  # rates 1k … 128k deltas/s, 3 s each
 *   pnpm bench:bus --rates 5000,50000 --step 5 --runs 100 --p99 50 --only redis
 *
 * Per step: `published/s` what the runner managed (of the target), `delivered` the share of
 * them both gateways received, p50/p90/p99 publish → gateway (ms, the slower gateway's), CPU
 * ms per 1,000 published deltas — the three Node processes (`clients`) and the database server (`server`:
 * PostgreSQL's backends of the benchmark's connections, or the redis-server process).
 * A step is sustained when the runner kept ≥ 95% of the target, every delta reached both
 * gateways, and p99 ≤ `--p99` ms (default 100). The ceiling is the highest sustained rate; a
 * bus stops after two saturated steps in a row (the runner fell behind, a delta was lost, or
 * p99 passed 2 s).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { migrate } from '@runlight/store-postgres';
import pg from 'pg';
import { createClient } from 'redis';
import type { ChildConfig, GatewayCount, GatewayReport, RunnerReport, ToChild } from './bus-child';
import type { BusKind } from './open-bus';
import { postgresCpu, redisCpu, type ServerCpu } from './server-cpu';

const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1]! : fallback;
};
const rates = option('rates', '1000,2000,4000,8000,16000,32000,64000,128000')
  .split(',')
  .map(Number);
const stepMs = Number(option('step', '3')) * 1_000;
const runCount = Number(option('runs', '20'));
const p99Budget = Number(option('p99', '100'));
const only = option('only', 'postgres,redis').split(',');

const CHILD = fileURLToPath(new URL('./bus-child.ts', import.meta.url));
const APPLICATION = `rl-bench-bus-${randomBytes(3).toString('hex')}`;
const PG_URL = `${process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'}`;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const REDIS_PREFIX = `${process.env.RUNLIGHT_BENCH_REDIS_PREFIX ?? 'rl:bench:'}${randomBytes(3).toString('hex')}:`;

interface Child {
  process: ChildProcess;
  next<T>(type: string): Promise<T>;
  tell(message: ToChild): void;
}

/** Sends `message` and resolves with the child's reply of type `reply`. */
function ask<T>(child: Child, message: ToChild, reply: string): Promise<T> {
  const answer = child.next<T>(reply);
  child.tell(message);
  return answer;
}

function spawnChild(config: ChildConfig): Promise<Child> {
  const child = fork(CHILD, [JSON.stringify(config)], {
    execArgv: [
      '--import',
      'tsx',
      '--conditions=@runlight/source',
      ...(process.env.BENCH_BUS_CPU_PROF
        ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_BUS_CPU_PROF}`]
        : []),
    ],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const waiting = new Map<string, (message: unknown) => void>();
  child.on('message', (message: { type: string }) => {
    waiting.get(message.type)?.(message);
    waiting.delete(message.type);
  });
  const next = <T>(type: string) =>
    new Promise<T>((resolve, reject) => {
      child.once('exit', onExit);
      function onExit(code: number | null) {
        reject(new Error(`${config.role} exited (${code})`));
      }
      waiting.set(type, (message) => {
        child.off('exit', onExit);
        resolve(message as T);
      });
    });
  const ready = next('ready');
  return ready.then(() => ({ process: child, next, tell: (message) => child.send(message) }));
}

interface Step {
  rate: number;
  publishedPerSecond: number;
  delivered: number;
  p50: number;
  p90: number;
  p99: number;
  clientCpuPer1000: number;
  serverCpuPer1000: number;
  sustained: boolean;
}

/** One bus's processes: a runner and two gateways following the same runs. */
interface Fleet {
  name: string;
  runner: Child;
  gateways: Child[];
  serverCpu: ServerCpu;
  steps: Step[];
  /** Saturated steps in a row; at two the fleet stops. */
  failures: number;
}

async function openFleet(name: string, bus: BusKind, serverCpu: ServerCpu): Promise<Fleet> {
  const runIds = Array.from({ length: runCount }, (_, index) => `bench-${name}-${index}`);
  const base = { bus, runIds, deltasPerBase: 2_000 };
  const gateways = await Promise.all([0, 1].map(() => spawnChild({ ...base, role: 'gateway' })));
  const runner = await spawnChild({ ...base, role: 'runner' });
  // Warm-up (JIT, connections, buffers): 2 s at 2,000 deltas/s, not measured.
  await ask(runner, { type: 'publish', rate: 2_000, durationMs: 2_000 }, 'published');
  return { name, runner, gateways, serverCpu, steps: [], failures: 0 };
}

async function closeFleet(fleet: Fleet): Promise<void> {
  const children = [fleet.runner, ...fleet.gateways];
  const exited = children.map(
    (child) => new Promise((resolve) => child.process.once('exit', resolve)),
  );
  for (const child of children) child.tell({ type: 'close' });
  await Promise.all(exited);
  await fleet.serverCpu.close();
}

async function measureStep(fleet: Fleet, rate: number): Promise<Step> {
  const { runner, gateways, serverCpu } = fleet;
  await Promise.all(gateways.map((gateway) => ask(gateway, { type: 'measure' }, 'measuring')));
  const serverBefore = await serverCpu.read();
  const published = await ask<RunnerReport>(
    runner,
    { type: 'publish', rate, durationMs: stepMs },
    'published',
  );
  // Let the gateways drain (at most 5 s): what is late shows in p99, what never came in `delivered`.
  for (let waited = 0; waited <= 5_000; waited += 100) {
    const counts = await Promise.all(
      gateways.map((gateway) => ask<GatewayCount>(gateway, { type: 'count' }, 'counted')),
    );
    if (counts.every((count) => count.received >= published.published)) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const reports = await Promise.all(
    gateways.map((gateway) => ask<GatewayReport>(gateway, { type: 'report' }, 'received')),
  );
  const serverMs = (await serverCpu.read()) - serverBefore;
  // The slower gateway's figures.
  const worst = (pick: (report: GatewayReport) => number) => Math.max(...reports.map(pick));
  const delivered = Math.min(...reports.map((report) => report.received)) / published.published;
  const clientMs = published.cpuMs + reports.reduce((sum, report) => sum + report.cpuMs, 0);
  const publishedPerSecond = (published.published / published.elapsedMs) * 1_000;
  const step: Step = {
    rate,
    publishedPerSecond,
    delivered,
    p50: worst((report) => report.p50),
    p90: worst((report) => report.p90),
    p99: worst((report) => report.p99),
    clientCpuPer1000: (clientMs / published.published) * 1_000,
    serverCpuPer1000: (serverMs / published.published) * 1_000,
    sustained: false,
  };
  step.sustained = publishedPerSecond >= 0.95 * rate && delivered >= 1 && step.p99 <= p99Budget;
  // Saturated: the runner fell behind, deltas were lost, or they queue for seconds.
  const saturated = publishedPerSecond < 0.95 * rate || delivered < 1 || step.p99 > 2_000;
  fleet.failures = saturated ? fleet.failures + 1 : 0;
  fleet.steps.push(step);
  return step;
}

const row = (name: string, step: Step) =>
  [
    name.padEnd(9),
    String(step.rate).padStart(9),
    step.publishedPerSecond.toFixed(0).padStart(13),
    `${(step.delivered * 100).toFixed(1)}%`.padStart(11),
    step.p50.toFixed(1).padStart(8),
    step.p90.toFixed(1).padStart(8),
    step.p99.toFixed(1).padStart(8),
    step.clientCpuPer1000.toFixed(1).padStart(18),
    step.serverCpuPer1000.toFixed(1).padStart(18),
    step.sustained ? '' : '  not sustained',
  ].join('');

const ceiling = (steps: readonly Step[]) =>
  steps.filter((step) => step.sustained).sort((a, b) => b.rate - a.rate)[0];

const fleets: Fleet[] = [];
const schema = `rl_bench_bus_${randomBytes(3).toString('hex')}`;
const admin = new pg.Pool({ connectionString: PG_URL, max: 1 });
try {
  console.log(
    `bus bench: ${runCount} runs, ${stepMs / 1_000} s per step, 2 gateways, p99 budget ${p99Budget} ms; the buses take turns at each rate`,
  );
  if (only.includes('postgres')) {
    await migrate(admin, { schema });
    const connectionString = `${PG_URL}${PG_URL.includes('?') ? '&' : '?'}application_name=${APPLICATION}`;
    const cpu = postgresCpu(PG_URL, APPLICATION);
    fleets.push(await openFleet('postgres', { kind: 'postgres', connectionString, schema }, cpu));
  }
  if (only.includes('redis')) {
    const cpu = await redisCpu(REDIS_URL);
    const bus: BusKind = { kind: 'redis', url: REDIS_URL, keyPrefix: REDIS_PREFIX };
    fleets.push(await openFleet('redis', bus, cpu));
  }
  console.log(
    '\nbus       target/s  published/s  delivered  p50 ms  p90 ms  p99 ms  client CPU ms/1k  server CPU ms/1k',
  );
  for (const rate of rates) {
    for (const fleet of fleets) {
      if (fleet.failures < 2) console.log(row(fleet.name, await measureStep(fleet, rate)));
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

console.log(
  '\nceilings (sustained: ≥ 95% of the target published, every delta at both gateways, p99 ≤ budget)',
);
for (const fleet of fleets) {
  const best = ceiling(fleet.steps);
  console.log(
    best
      ? `  ${fleet.name.padEnd(9)} ${best.publishedPerSecond.toFixed(0)} deltas/s end to end (${(2 * best.publishedPerSecond).toFixed(0)} deliveries/s), p99 ${best.p99.toFixed(1)} ms, CPU ${(best.clientCpuPer1000 + best.serverCpuPer1000).toFixed(1)} ms per 1,000`
      : `  ${fleet.name.padEnd(9)} no rate sustained`,
  );
}
const [postgres, redis] = ['postgres', 'redis'].map((name) =>
  ceiling(fleets.find((fleet) => fleet.name === name)?.steps ?? []),
);
if (postgres && redis) {
  console.log(
    `  redis / postgres: ${(redis.publishedPerSecond / postgres.publishedPerSecond).toFixed(1)}× the ceiling (goal ≥ 5×); redis ${redis.publishedPerSecond >= 50_000 ? 'meets' : 'misses'} 50,000 deltas/s`,
  );
}
