/**
 * Issue 17 fan-out benchmark: W watchers follow 100 slots of scripted runs (1 s first token,
 * 200 tokens × 20 ms) over loopback, joining while the runs stream. Every server runs in its
 * own child process, so RSS and CPU are the server's; the watchers are plain `http.get`
 * readers in this process. In one invocation, for each W:
 *
 * - `bare`: a bare `node:http` SSE server writing the same JSON (the baseline of the ratios);
 * - `hub`: Runlight's handlers + `toNodeListener` fed the same synthetic runs (sending alone);
 * - `runtime`: one process executing the runs with `createAgentRuntime` and serving them;
 * - `2 gateways` (with `--gateways`): a runner process executing the runs and 2 gateway
 *   processes serving them, joined by PostgreSQL (store + LISTEN/NOTIFY bus) at 127.0.0.1:5432.
 *
 *   pnpm bench:fanout                                   # W = 0, 1000 — a few minutes
 *   pnpm bench:fanout --watchers 0,1000,3000,10000 --gateways
 *   pnpm bench:fanout --modes bare,runtime --steady 10 --join-timeout 60
 *   pnpm bench:fanout --only throughput                 # the tokens/s per core table
 *   pnpm bench:fanout --only idle --idle 5000           # the memory of idle watchers
 *   pnpm bench:fanout --modes gateways --watchers 10000 --join-rate 500   # paced arrivals
 *
 * `--idle N` (default 2000; 0 skips it): N watchers connect to quiet runs (created, never
 * started) of a fresh server of each mode; the server's RSS and heap after a full GC, before
 * and after, divided by the watchers connected, is the memory one idle watcher holds.
 *
 * The server children run bundled (`bundle-server.ts`: one tsdown build, as users run the
 * packages), `--from-source` runs them through tsx instead.
 *
 * `send µs/delta` = (server CPU in the window − the same mode's CPU at W = 0) / text deltas
 * delivered (alone or in `run-deltas` messages): what sending costs per delivered delta; `vs
 * bare` divides it by the bare server's. `delivered ev/s` counts SSE messages, `deltas/s` the
 * deltas in them, `bytes/answer` what one watcher receives per answer of `tokens` deltas.
 * `hub-batched` / `runtime-batched` (`--modes`): those modes with wire coalescing
 * (`coalesceDeltasMs` = `--coalesce`, default 50 ms; the watchers ask for `run-deltas`).
 */
import { execSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { bundleEntry } from './bundle-server';
import { fixed, listenOverflows, quantile } from './figures';
import { measureIdle } from './idle-watchers';
import { postgresFixture } from './postgres-fixture';
import {
  type Child,
  runBundled,
  spawnServer,
  stopChildren,
  tell,
  useServerEntry,
} from './server-children';
import {
  DEFAULT_WORKLOAD,
  type ServerMessage,
  type ServerStats,
  type Workload,
} from './slot-schedule';
import { runThroughput } from './throughput';
import { WatcherPool } from './watcher-pool';

/** `hub-batched` / `runtime-batched`: the same with wire coalescing (`--coalesce` ms). */
export type Mode = 'bare' | 'hub' | 'runtime' | 'gateways' | 'hub-batched' | 'runtime-batched';

export interface Options {
  watchers: number[];
  modes: Mode[];
  steadyMs: number;
  joinTimeoutMs: number;
  backlog: number;
  gateways: number;
  only: 'all' | 'fanout' | 'throughput' | 'idle';
  idle: number;
  /** Watchers opened per second while joining (default: all at once, in batches of 250). */
  joinRate: number;
  /** Run the server children from source through tsx instead of bundled. */
  fromSource: boolean;
  /** `coalesceDeltasMs` of the `-batched` modes. */
  coalesce: number;
  workload: Workload;
}

function parseArgs(argv: string[]): Options {
  const value = (name: string) => {
    const at = argv.indexOf(`--${name}`);
    return at >= 0 ? argv[at + 1] : undefined;
  };
  const gateways = argv.includes('--gateways');
  const modes = (value('modes')?.split(',') as Mode[]) ?? [
    'bare',
    'hub',
    'runtime',
    ...(gateways ? (['gateways'] as const) : []),
  ];
  return {
    watchers: (value('watchers') ?? '0,1000').split(',').map(Number),
    modes,
    steadyMs: Number(value('steady') ?? 10) * 1000,
    joinTimeoutMs: Number(value('join-timeout') ?? 60) * 1000,
    backlog: Number(value('backlog') ?? 4096),
    gateways: Number(value('gateway-count') ?? 2),
    only: (value('only') as Options['only']) ?? 'all',
    idle: Number(value('idle') ?? 2000),
    joinRate: Number(value('join-rate') ?? Number.POSITIVE_INFINITY),
    fromSource: argv.includes('--from-source'),
    coalesce: Number(value('coalesce') ?? 50),
    workload: { ...DEFAULT_WORKLOAD, slots: Number(value('slots') ?? DEFAULT_WORKLOAD.slots) },
  };
}

interface Row {
  mode: string;
  watchers: number;
  connected: string;
  'connect all s': string;
  'accepted/s': string;
  resets: number;
  'server RSS MB': string;
  'RSS KB/watcher'?: string;
  'server CPU %': string;
  'delivered ev/s': string;
  'deltas/s': string;
  'bytes/answer': string;
  'run ev/s': string;
  'vs full speed': string;
  'p50 / p99 pub→recv ms': string;
  'send µs/delta': string;
  'vs bare': string;
  /** Not printed: the CPU per second of the serving processes (for the W = 0 subtraction). */
  servingCpuPerSec?: number;
  sendMicros?: number;
  eventsPerSec?: number;
  rssBytes?: number;
}

async function measure(mode: Mode, watchers: number, options: Options): Promise<Row> {
  const { workload } = options;
  const current: number[] = [];
  const children: Child[] = [];
  let fixture: Awaited<ReturnType<typeof postgresFixture>> | null = null;
  try {
    if (mode === 'gateways') {
      fixture = await postgresFixture();
      const postgres = { connectionString: fixture.connectionString, schema: fixture.schema };
      children.push(
        await spawnServer(
          { role: 'runner', workload, backlog: options.backlog, postgres },
          current,
        ),
      );
      for (let i = 0; i < options.gateways; i++) {
        children.push(
          await spawnServer(
            { role: 'gateway', workload, backlog: options.backlog, postgres },
            current,
          ),
        );
      }
    } else {
      const role = mode === 'hub-batched' ? 'hub' : mode === 'runtime-batched' ? 'runtime' : mode;
      const coalesceDeltasMs = mode.endsWith('-batched') ? options.coalesce : 0;
      children.push(
        await spawnServer({ role, workload, backlog: options.backlog, coalesceDeltasMs }, current),
      );
    }
    const serving = children.filter((child) => child.port !== null);
    const ports = serving.map((child) => child.port!);
    // The runs are streaming before anyone joins.
    await new Promise((resolve) => setTimeout(resolve, workload.firstTokenMs + 2_000));

    const pool = new WatcherPool(ports, workload.slots, current);
    const clientCpu = process.cpuUsage();
    const clientStart = performance.now();
    const clientPercent = (since: NodeJS.CpuUsage, from: number) => {
      const used = process.cpuUsage(since);
      return (((used.user + used.system) / 1e3 / (performance.now() - from)) * 100).toFixed(0);
    };
    const overflows = listenOverflows();
    let join = { ms: 0, all: true };
    if (watchers > 0) join = await pool.join(watchers, options.joinTimeoutMs, options.joinRate);
    const connectedAtJoin = pool.connected;
    const dropped = listenOverflows() - overflows;
    const joinCpu = watchers === 0 ? '–' : clientPercent(clientCpu, clientStart);
    const steadyCpu = process.cpuUsage();

    for (const child of children) tell(child, { type: 'window-start' });
    const delivered0 = pool.delivered;
    const deltas0 = pool.deltas;
    const bytes0 = pool.bytes;
    pool.received.clear();
    const started = performance.now();
    await new Promise((resolve) => setTimeout(resolve, options.steadyMs));
    const stats = await Promise.all(
      children.map(async (child) => {
        const reply = child.next('stats');
        tell(child, { type: 'window-end' });
        return ((await reply) as Extract<ServerMessage, { type: 'stats' }>).stats;
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const delivered = pool.delivered - delivered0;
    const deltas = pool.deltas - deltas0;
    const bytes = pool.bytes - bytes0;
    const received = new Map(pool.received);
    const resets = pool.resets;
    const reasons = [...pool.resetReasons].map(([reason, n]) => `${reason}×${n}`).join(', ');
    pool.close();

    const latencies: number[] = [];
    const published: Record<string, number> = Object.assign({}, ...stats.map((s) => s.published));
    for (const [key, at] of received) {
      const sent = published[key];
      if (sent !== undefined) latencies.push(at - sent);
    }
    const servingStats = stats.filter((s: ServerStats) => s.role !== 'runner');
    const runner = stats.find((s) => s.role === 'runner');
    const cpu = (list: ServerStats[]) => list.reduce((sum, s) => sum + s.cpuMicros, 0);
    const rates = stats.flatMap((s) => s.runRates);
    const fullSpeed = 1000 / workload.tokenMs;
    const rate = quantile(rates, 0.5);
    const rss = servingStats.reduce((sum, s) => sum + s.rssPeak, 0) / 2 ** 20;
    const label =
      mode === 'gateways'
        ? `runner + ${options.gateways} gateways`
        : mode === 'runtime'
          ? 'runtime (1 process)'
          : mode;
    if (reasons) console.log(`  ${label} W=${watchers}: resets ${reasons}`);
    const loop = stats.map((s) => `${s.role} ${s.loopDelayP99.toFixed(0)} ms`).join(', ');
    console.log(
      `  ${label} W=${watchers}: machine load ${loadavg()[0]!.toFixed(1)}; event-loop delay p99 ${loop}; client (watchers) CPU ${joinCpu}% joining, ${clientPercent(steadyCpu, started)}% steady; handshakes dropped by full listen queues while joining ${dropped}`,
    );
    return {
      mode: label,
      watchers,
      connected: watchers === 0 ? '–' : `${connectedAtJoin}`,
      'connect all s':
        watchers === 0
          ? '–'
          : join.all
            ? (join.ms / 1000).toFixed(1)
            : `not in ${(join.ms / 1000).toFixed(0)}`,
      'accepted/s': watchers === 0 ? '–' : fixed(connectedAtJoin / (join.ms / 1000)),
      resets,
      'server RSS MB': runner
        ? `${fixed(rss)} (+ runner ${fixed(runner.rssPeak / 2 ** 20)})`
        : fixed(rss),
      'server CPU %': runner
        ? `${fixed(cpu(servingStats) / 1e4 / seconds)} (+ runner ${fixed(runner.cpuMicros / 1e4 / seconds)})`
        : fixed(cpu(stats) / 1e4 / seconds),
      'delivered ev/s': watchers === 0 ? '–' : fixed(delivered / seconds),
      'deltas/s': watchers === 0 ? '–' : fixed(deltas / seconds),
      // What one watcher receives for one answer of `tokens` deltas (its share of the rest too).
      'bytes/answer': deltas === 0 ? '–' : fixed((bytes / deltas) * workload.tokens),
      'run ev/s': fixed(rate, 1),
      'vs full speed': `${fixed((rate / fullSpeed) * 100)}%`,
      'p50 / p99 pub→recv ms': latencies.length
        ? `${fixed(quantile(latencies, 0.5), 1)} / ${fixed(quantile(latencies, 0.99), 1)}`
        : '–',
      'send µs/delta': '–',
      'vs bare': '–',
      servingCpuPerSec: cpu(servingStats) / seconds,
      eventsPerSec: deltas / seconds,
      rssBytes: rss * 2 ** 20,
    };
  } finally {
    await stopChildren(children);
    await fixture?.close();
  }
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const serverEntry = options.fromSource ? null : await bundleEntry('fanout-server');
  useServerEntry(serverEntry);
  console.log(
    options.fromSource
      ? 'Servers run from source (tsx: every closure carries a redefined name)'
      : `Servers run bundled, as users run them: ${serverEntry}`,
  );
  const limit = Number(execSync('ulimit -n', { shell: '/bin/bash' }).toString().trim());
  const most = Math.max(...options.watchers);
  if (Number.isFinite(limit) && limit < most + 1_000) {
    console.warn(`ulimit -n is ${limit}: raise it (ulimit -n ${most + 2_000}; see ulimit -Hn)`);
  }
  if ((options.only === 'all' || options.only === 'idle') && options.idle > 0) {
    console.log(
      `\nIdle watchers: ${options.idle} watchers of quiet runs (created, never started), memory after a full GC`,
    );
    const rows = [];
    for (const mode of options.modes) rows.push(await measureIdle(mode, options.idle, options));
    console.table(rows);
  }
  if (options.only === 'all' || options.only === 'fanout') {
    const w = options.workload;
    console.log(
      `\nFan-out: ${w.slots} slots of runs (${w.firstTokenMs} ms first token, ${w.tokens} tokens × ${w.tokenMs} ms), ` +
        `watchers join while they stream${Number.isFinite(options.joinRate) ? ` (${options.joinRate}/s)` : ''}; steady window ${options.steadyMs / 1000} s, join cap ${options.joinTimeoutMs / 1000} s`,
    );
    const rows: Row[] = [];
    for (const mode of options.modes) {
      for (const watchers of options.watchers) {
        const row = await measure(mode, watchers, options);
        rows.push(row);
        const idle = rows.find((r) => r.mode === row.mode && r.watchers === 0);
        if (idle && row.watchers > 0 && row.eventsPerSec) {
          row.sendMicros = (row.servingCpuPerSec! - idle.servingCpuPerSec!) / row.eventsPerSec;
          row['send µs/delta'] = fixed(row.sendMicros, 1);
          const connected = Number(row.connected);
          row['RSS KB/watcher'] = fixed((row.rssBytes! - idle.rssBytes!) / 1024 / connected, 1);
        }
        const bare = rows.find((r) => r.mode === 'bare' && r.watchers === row.watchers);
        if (bare?.sendMicros && row.sendMicros !== undefined) {
          row['vs bare'] = `${(row.sendMicros / bare.sendMicros).toFixed(2)}×`;
        }
        console.log(`  done: ${row.mode}, W=${watchers}`);
      }
    }
    console.table(
      rows.map(
        ({
          servingCpuPerSec: _cpu,
          sendMicros: _send,
          eventsPerSec: _e,
          rssBytes: _r,
          ...printed
        }) => ({
          ...printed,
          'RSS KB/watcher': printed['RSS KB/watcher'] ?? '–',
        }),
      ),
    );
  }
  if (options.only === 'all' || options.only === 'throughput') {
    if (options.fromSource) await runThroughput();
    else await runBundled(await bundleEntry('throughput'));
  }
}

await main();
process.exit(0);
