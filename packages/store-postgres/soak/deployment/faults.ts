import type { AgentRuntimeStore } from '@runlight/runtime';
import type pg from 'pg';
import { injectClockSkew } from './clock-skew-fault';
import type { Fleet, Member } from './fleet';
import type { PgProxy } from './pg-proxy';
import type { SoakRedis } from './redis-server';

/** The faults of issue 21, one after another; each resolves when the fault has cleared. */
export const FAULTS = [
  'pg-restart',
  'outage-10s',
  'terminate-backends',
  'listen-freeze',
  'runner-sigkill',
  'runner-sigstop',
  'rolling-restart',
  'clock-skew',
] as const;
/** The faults of the Redis bus (`--bus redis`: the soak's own `redis-server`), after those. */
export const REDIS_FAULTS = ['redis-outage-10s'] as const;
export type Fault = (typeof FAULTS)[number] | (typeof REDIS_FAULTS)[number];

export interface FaultContext {
  fleet: Fleet;
  proxy: PgProxy;
  /** A pool straight to the server (not through the proxy). */
  admin: pg.Pool;
  /** The soak's own Redis with `--bus redis`, else null. */
  redis: SoakRedis | null;
  /** Prefix of every application_name of this soak's processes. */
  appPrefix: string;
  leaseMs: number;
  /** Runner names are numbered as they are started. */
  nextRunnerName(): string;
  log(line: string): void;
  /** The soak's store (on the server, not through the proxy), and the wave's runs. */
  store: AgentRuntimeStore;
  runIds: readonly string[];
  wave: number;
  boundFactor: number;
  /** Records a violation the fault itself found. */
  violation(line: string): void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function backendsOf(
  context: FaultContext,
  member?: Member,
): Promise<{ pid: number; query: string }[]> {
  const name = member ? `${context.appPrefix}${member.name}` : `${context.appPrefix}%`;
  const { rows } = await context.admin.query<{ pid: number; query: string }>(
    'SELECT pid, query FROM pg_stat_activity WHERE application_name LIKE $1 AND pid <> pg_backend_pid()',
    [name],
  );
  return rows;
}

function onlyRunner(context: FaultContext): Member {
  const [runner] = context.fleet.runners();
  if (!runner) throw new Error('no runner alive');
  return runner;
}

/** Injects `fault` and resolves once it has cleared, with notes for the report. */
export async function inject(fault: Fault, context: FaultContext): Promise<string> {
  const { fleet, proxy } = context;
  switch (fault) {
    case 'pg-restart': {
      // What a restart does to clients: every connection reset, new ones refused for 3 s.
      await proxy.refuse(3_000);
      return 'connections reset, refused 3 s';
    }
    case 'outage-10s': {
      await proxy.refuse(10_000);
      return 'connections reset, refused 10 s';
    }
    case 'terminate-backends': {
      const backends = await backendsOf(context);
      await context.admin.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [
        backends.map((backend) => backend.pid),
      ]);
      return `pg_terminate_backend of ${backends.length} connections`;
    }
    case 'listen-freeze': {
      const [gateway] = fleet.gateways();
      if (!gateway) throw new Error('no gateway alive');
      const listening = (await backendsOf(context, gateway)).filter((backend) =>
        // The bus's last statement on it is LISTEN, or its liveness probe (LIVENESS_PROBE_SQL).
        /^\s*listen\b|runlight_liveness/i.test(backend.query),
      );
      if (listening.length === 0) throw new Error(`no LISTEN backend of ${gateway.name} found`);
      for (const { pid } of listening) process.kill(pid, 'SIGSTOP');
      await sleep(10_000);
      for (const { pid } of listening) process.kill(pid, 'SIGCONT');
      return `LISTEN backend of ${gateway.name} (pid ${listening.map((b) => b.pid).join(',')}) stopped 10 s`;
    }
    case 'runner-sigkill': {
      const runner = onlyRunner(context);
      await fleet.kill(runner);
      // The orchestrator starts a replacement, as a deployment's would.
      await fleet.start('runner', context.nextRunnerName());
      return `${runner.name} SIGKILLed, replacement started`;
    }
    case 'runner-sigstop': {
      const runner = onlyRunner(context);
      runner.child.kill('SIGSTOP');
      await sleep(context.leaseMs + 2_000);
      // Another runner takes the expired leases; the stopped one wakes up fenced.
      const standby = await fleet.start('runner', context.nextRunnerName());
      await sleep(context.leaseMs);
      runner.child.kill('SIGCONT');
      await sleep(1_000);
      await fleet.terminate(runner);
      return `${runner.name} SIGSTOPped ${context.leaseMs * 2 + 2_000} ms; ${standby.name} took over`;
    }
    case 'redis-outage-10s': {
      // A Redis restart without persistence, down 10 s: every delta in flight is lost.
      if (!context.redis) throw new Error('redis-outage-10s needs --bus redis');
      await context.redis.stop();
      await sleep(10_000);
      await context.redis.start();
      return 'redis-server SIGKILLed, started again (empty) after 10 s';
    }
    case 'clock-skew':
      return injectClockSkew(context);
    case 'rolling-restart': {
      const runner = onlyRunner(context);
      const next = await fleet.start('runner', context.nextRunnerName());
      await fleet.terminate(runner);
      // SIGTERM: the runner closes gracefully and hands its runs off to `next` at once.
      return `${runner.name} SIGTERMed (graceful close) after ${next.name} started`;
    }
  }
}
