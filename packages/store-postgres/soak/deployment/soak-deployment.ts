/**
 * `pnpm soak:deployment` — the README's production shape under the faults an operator meets:
 * 1 runner (with its recovery loop) + 2 gateways on the real PostgreSQL server, every process
 * connected through a loopback TCP proxy the soak controls, watchers (the real client) on both
 * gateways, runs with tools, approvals and cancels. The faults, one after another, each while a
 * wave of runs streams: a PostgreSQL restart (every connection reset, refused 3 s), a 10 s
 * outage, `pg_terminate_backend` of every connection, the LISTEN backend of a gateway stopped
 * 10 s, SIGKILL and SIGSTOP of the runner, a rolling runner restart. Cancels and approval
 * answers go to the gateways (each approval to both at once: exactly one may be accepted).
 * Live events travel on PostgreSQL's LISTEN/NOTIFY bus, or with `--bus redis` on the Redis
 * Streams bus (`@runlight/bus-redis`, `connectPostgresDeployment({ bus })`) through a
 * `redis-server` the soak starts on a port of its own. The store stays on PostgreSQL, so the
 * faults above still apply — but `listen-freeze`: no LISTEN connection is open — and one more
 * follows: `redis-outage-10s`, Redis SIGKILLed and started again empty 10 s later.
 *
 * After each wave it checks: no process exited unless the soak killed it; every run ended in
 * exactly one terminal state, the expected one, within lease + 10 s of the fault clearing; no
 * committed text lost (every text sampled from the database is a prefix of the final one);
 * every watcher on every gateway shows the end and exactly the stored text (no gap, no glued
 * text); every cancel and approval took effect exactly once; no write after a fencing loss;
 * on the Redis bus, every process reported a Redis outage exactly twice (started, ended).
 * Figures per wave: the last run's end after the fault cleared, the longest hand-off → takeover,
 * the longest cancel → `cancelled` (sent to a gateway just before the fault: how fast the bus
 * wakes the runner — a few hundred ms — unless the fault stops the runner or the store first,
 * when it waits for the takeover); with `--rounds` above 1, each fault's spread across rounds
 * (min / median / max), e.g. `--faults runner-sigkill --rounds 6` for six takeovers in a row;
 * after a Redis outage, how long after Redis the last process said its bus was back.
 *   pnpm soak:deployment                 # full size: 16 runs per wave, every fault twice
 *   pnpm soak:deployment --size small    # 4 runs per wave, every fault once (pnpm test:soak)
 *   pnpm soak:deployment --size small --bus redis            # the same on the Redis bus
 *   pnpm soak:deployment --faults runner-sigkill --rounds 6  # one fault, six times over
 *
 * Needs PostgreSQL at 127.0.0.1:5432 (PGPORT moves it), database `test`, trust auth (a fresh
 * schema, dropped after); `--bus redis` needs `redis-server` on PATH. `--if-server` skips (exit
 * 0) without either. Exits 1 on any violation.
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { pendingApprovals } from '@runlight/protocol';
import { createAgentRuntimeStore } from '@runlight/runtime';
import pg from 'pg';
import { migrate } from '../../src/migrate';
import { createPostgresDriver } from '../../src/postgres-driver';
import { checkBusReports, markReports } from './bus-reports';
import { type ControlLog, checkRun, outcomeOf } from './checks';
import { FAULTS, type Fault, inject, REDIS_FAULTS } from './faults';
import { createFleet } from './fleet';
import { SOAK_BUSES, type SoakBus } from './open-bus';
import { startPgProxy } from './pg-proxy';
import { type SoakRedis, startSoakRedis } from './redis-server';
import { printReport, type WaveFigures } from './report';
import { runIdOf } from './scenarios';
import { deferred, postAsAUserWould, waitUntil } from './wait';
import { createWatcher, sampleCommittedText, selectMessage, textOf } from './watchers';

const { values } = parseArgs({
  options: {
    size: { type: 'string', default: 'full' },
    runs: { type: 'string' },
    rounds: { type: 'string' },
    faults: { type: 'string' },
    // Where live events travel: PostgreSQL's LISTEN/NOTIFY bus or the Redis Streams bus.
    bus: { type: 'string', default: 'postgres' },
    // Longer than the 10 s outage, as the runtime's default 30 s lease is: an outage shorter
    // than the lease loses no run (a shorter `--lease-ms` makes the outage waves end runs).
    'lease-ms': { type: 'string', default: '15000' },
    // Runs end within lease + 10 s of a fault clearing; beside other work (`pnpm test`) a run
    // may take this many times that before it is a violation (it is printed as late).
    'bound-factor': { type: 'string', default: '1' },
    // `pnpm test`: skip (exit 0, saying so) when no server answers, as the server suites do.
    'if-server': { type: 'boolean', default: false },
  },
});
const small = values.size === 'small';
const runsPerWave = Number(values.runs ?? (small ? 4 : 16));
const rounds = Number(values.rounds ?? (small ? 1 : 2));
const leaseMs = Number(values['lease-ms']);
const boundFactor = Math.max(1, Number(values['bound-factor']));
const bus = values.bus as SoakBus;
if (!SOAK_BUSES.includes(bus)) throw new Error(`Unknown bus ${bus} (${SOAK_BUSES.join(', ')})`);
// On Redis no LISTEN connection is open: `listen-freeze` has nothing to stop.
const known: readonly Fault[] =
  bus === 'redis'
    ? [...FAULTS.filter((fault) => fault !== 'listen-freeze'), ...REDIS_FAULTS]
    : FAULTS;
const faults = (values.faults?.split(',') ?? known) as Fault[];
for (const fault of faults) {
  if (!known.includes(fault)) throw new Error(`Unknown fault ${fault} on the ${bus} bus`);
}

const host = '127.0.0.1';
const port = Number(process.env.PGPORT ?? 5432);
const started = Date.now();
const log = (line: string) =>
  console.log(`[soak ${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s] ${line}`);

async function connectAdmin(): Promise<{ admin: pg.Pool; user: string }> {
  for (const user of [process.env.PGUSER, 'postgres', 'root']) {
    if (!user) continue;
    const admin = new pg.Pool({ host, port, user, database: 'test', max: 8 });
    admin.on('error', () => {});
    try {
      await admin.query('SELECT 1');
      return { admin, user };
    } catch {
      await admin.end().catch(() => {});
    }
  }
  throw new Error(`No PostgreSQL answers at ${host}:${port}/test`);
}

const connected = await connectAdmin().catch((error: unknown) => {
  if (!values['if-server']) throw error;
  log(`skipped: ${(error as Error).message}`);
  process.exit(0);
});
const redis: SoakRedis | null =
  bus === 'redis'
    ? await startSoakRedis().catch(async (error: unknown) => {
        if (!values['if-server']) throw error;
        log(`skipped: no redis-server to start (${(error as Error).message})`);
        await connected.admin.end();
        process.exit(0);
      })
    : null;
const { admin, user } = connected;
const id = randomBytes(3).toString('hex');
const schema = `rl_soak_${id}`;
const appPrefix = `soak-${id}-`;
await migrate(admin, { schema });
await admin.query(
  `CREATE TABLE "${schema}".soak_effects (key text PRIMARY KEY, count int NOT NULL)`,
);
const store = createAgentRuntimeStore(createPostgresDriver({ client: admin, schema }));
const proxy = await startPgProxy({ host, port });
const fleet = createFleet({
  DATABASE_URL: `postgres://${user}@${host}:${proxy.port}/test`,
  RUNLIGHT_SCHEMA: schema,
  SOAK_LEASE_MS: String(leaseMs),
  SOAK_APP_PREFIX: appPrefix,
  SOAK_BUS: bus,
  SOAK_REDIS_URL: redis?.url ?? '',
});
let runnerCount = 0;
const nextRunnerName = () => `runner${++runnerCount}`;
const violations: string[] = [];
const control: ControlLog = { cancels: new Map(), approvals: new Map() };
/** When each cancel was sent to a gateway (the first attempt). */
const cancelSentAt = new Map<string, number>();
const figures: WaveFigures[] = [];
log(`live events on the ${bus} bus${redis ? ` (its own redis-server, ${redis.url})` : ''}`);

try {
  await fleet.start('runner', nextRunnerName());
  const gateways = await Promise.all([
    fleet.start('gateway', 'gw1'),
    fleet.start('gateway', 'gw2'),
  ]);
  const watchers = gateways.map((gateway) => createWatcher(gateway.name, gateway.origin!));
  const sampler = sampleCommittedText(store);
  let wave = 0;
  for (let round = 0; round < rounds; round++) {
    for (const fault of faults) {
      wave++;
      const before = violations.length;
      const marks = markReports(fleet.members.filter((member) => !member.exited));
      const runIds = Array.from({ length: runsPerWave }, (_, index) => runIdOf(wave, index));
      await startRuns(runIds);
      for (const runId of runIds) {
        sampler.add(runId);
        for (const watcher of watchers) watcher.follow(runId);
      }
      await waitUntil(
        runIds.map((runId) => () => isUnderway(runId)),
        15_000,
      );
      await Promise.all(
        runIds.filter((r) => r.endsWith('-cancel')).map((runId, index) => cancel(runId, index)),
      );
      const notes = await inject(fault, {
        fleet,
        proxy,
        admin,
        redis,
        appPrefix,
        leaseMs,
        nextRunnerName,
        log,
      });
      const clearedAt = Date.now();
      log(`wave ${wave}: ${fault} cleared (${notes})`);
      const boundMs = leaseMs + 10_000;
      const deadline = clearedAt + boundMs * boundFactor;
      await Promise.all(
        runIds.filter((r) => r.endsWith('-approval')).map((runId) => approve(runId, deadline)),
      );
      await waitUntil(
        runIds.map((runId) => async () => (await outcomeOf(store, runId)).endedAt !== null),
        deadline - Date.now(),
      );
      // Watchers get a few seconds beyond the store to show the end (a reconnect, a reload).
      await waitUntil(
        runIds.map((runId) => async () => {
          const { text, status } = await outcomeOf(store, runId);
          return watchers.every((watcher) => {
            const state = watcher.state(runId);
            return state?.run?.status === status && textOf(selectMessage(state)) === text;
          });
        }),
        10_000,
      );
      let recoveryMs = 0;
      let handOffMs: number | null = null;
      let cancelMs: number | null = null;
      for (const runId of runIds) {
        const gap = await handOffGap(runId);
        if (gap !== null) handOffMs = Math.max(handOffMs ?? 0, gap);
        sampler.remove(runId);
        const checked = await checkRun({
          store,
          runId,
          samples: sampler.samples(runId),
          watchers,
          control,
        });
        violations.push(...checked.violations);
        const sentAt = cancelSentAt.get(runId);
        if (sentAt !== undefined && checked.outcome.endedAt !== null) {
          cancelMs = Math.max(cancelMs ?? 0, checked.outcome.endedAt - sentAt);
        }
        if (checked.outcome.endedAt !== null) {
          recoveryMs = Math.max(recoveryMs, checked.outcome.endedAt - clearedAt);
          const endedAfter = checked.outcome.endedAt - clearedAt;
          if (checked.outcome.endedAt > deadline) {
            violations.push(
              `${runId}: ended ${endedAfter} ms after ${fault} cleared (bound ${boundMs}${boundFactor > 1 ? ` × ${boundFactor}` : ''})`,
            );
          } else if (endedAfter > boundMs) {
            log(
              `  late: ${runId} ended ${endedAfter} ms after ${fault} cleared (bound ${boundMs})`,
            );
          }
        }
      }
      const reports = checkBusReports({
        marks,
        clearedAt,
        redisOutage: fault === 'redis-outage-10s',
      });
      if (bus === 'redis') violations.push(...reports.violations);
      for (const member of fleet.unexpectedExits()) {
        violations.push(
          `${member.name} exited unasked (${JSON.stringify(member.exited)}): ${member.stderr.slice(-5).join(' | ')}`,
        );
        member.expectedExit = true;
      }
      // An orchestrator restarts what died, so the next faults are still measured.
      if (fleet.runners().length === 0) await fleet.start('runner', nextRunnerName());
      for (const [index, watcher] of watchers.entries()) {
        if (fleet.gateways().some((gateway) => gateway.name === watcher.gateway)) continue;
        watcher.close();
        const gateway = await fleet.start('gateway', `${watcher.gateway.split('.')[0]}.${wave}`);
        watchers[index] = createWatcher(gateway.name, gateway.origin!);
      }
      const found = violations.length - before;
      figures.push({
        fault,
        notes: bus === 'redis' ? `${notes}; ${reports.notes}` : notes,
        runs: runIds.length,
        recoveryMs,
        handOffMs,
        cancelMs,
        busBackMs: reports.backMs,
        violations: found,
      });
      const handOff = handOffMs === null ? '' : `, hand-off to takeover ≤ ${handOffMs} ms`;
      const cancelled = cancelMs === null ? '' : `, cancel → cancelled ≤ ${cancelMs} ms`;
      const back =
        reports.backMs === null ? '' : `, every bus back ${reports.backMs} ms after Redis`;
      const busNotes = bus === 'redis' ? ` (${reports.notes})` : '';
      log(
        `wave ${wave}: ${fault}: ${runIds.length} runs, last end ${recoveryMs} ms after clearing${handOff}${cancelled}${back}, ${found} violations${busNotes}`,
      );
      for (const line of violations.slice(before, before + 10)) log(`  ✗ ${line}`);
    }
  }
  await sampler.stop();
  for (const watcher of watchers) watcher.close();
} catch (error) {
  violations.push(
    `the soak itself failed: ${error instanceof Error ? error.stack : String(error)}`,
  );
} finally {
  await fleet.stopAll();
  await proxy.close();
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => {});
  await admin.end();
  await redis?.stop();
}

printReport(figures, violations, Date.now() - started);
process.exit(violations.length === 0 ? 0 : 1);

// ---------------------------------------------------------------------------------------------

async function startRuns(runIds: readonly string[]): Promise<void> {
  const [runner] = fleet.runners();
  if (!runner) throw new Error('no runner alive to start runs');
  const pending = new Map(runIds.map((runId) => [runId, deferred()]));
  const onMessage = (message: { type: string; runId: string; error?: string }) => {
    const waiting = pending.get(message.runId);
    if (message.type === 'started') waiting?.resolve();
    if (message.type === 'start-failed')
      waiting?.reject(new Error(`${message.runId}: ${message.error}`));
  };
  runner.child.on('message', onMessage);
  for (const runId of runIds) runner.child.send({ type: 'start', runId });
  try {
    await Promise.all([...pending.values()].map((waiting) => waiting.promise));
  } finally {
    runner.child.off('message', onMessage);
  }
}

/** The longest gap from a `lease-handed-off` event of `runId` to the takeover after it. */
async function handOffGap(runId: string): Promise<number | null> {
  const events = await store.readEvents(runId);
  let gap: number | null = null;
  for (const [index, event] of events.entries()) {
    if (event.type !== 'run-status' || event.change !== 'lease-handed-off') continue;
    const next = events
      .slice(index + 1)
      .find((later) => later.type === 'run-status' && later.change === 'acquired');
    if (next) gap = Math.max(gap ?? 0, Date.parse(next.at) - Date.parse(event.at));
  }
  return gap;
}

async function isUnderway(runId: string): Promise<boolean> {
  const snapshot = await store.getSnapshot(runId);
  const operation = snapshot.run.lastOperation;
  return (
    snapshot.run.status !== 'running' ||
    (operation?.kind === 'model-request' && operation.phase !== 'started')
  );
}

function gatewayOrigin(index: number): string {
  const alive = fleet.gateways();
  return alive[index % alive.length]!.origin!;
}

function record(map: Map<string, number[]>, runId: string, status: number) {
  map.set(runId, [...(map.get(runId) ?? []), status]);
}

async function cancel(runId: string, index: number): Promise<void> {
  cancelSentAt.set(runId, Date.now());
  record(
    control.cancels,
    runId,
    await postAsAUserWould(`${gatewayOrigin(index)}/api/runs/${runId}/cancel`, {}),
  );
}

async function approve(runId: string, deadline: number): Promise<void> {
  let approvalId: string | undefined;
  await waitUntil(
    [
      async () => {
        const snapshot = await store.getSnapshot(runId);
        approvalId = pendingApprovals(snapshot.assistant?.message)[0]?.approvalId;
        return approvalId !== undefined;
      },
    ],
    deadline - Date.now(),
  );
  if (!approvalId) {
    record(control.approvals, runId, -1);
    return;
  }
  const body = { approvals: [{ approvalId, approved: true }] };
  // A double-click across two gateways: exactly one answer may be accepted.
  const statuses = await Promise.all(
    [0, 1].map((index) =>
      postAsAUserWould(`${gatewayOrigin(index)}/api/runs/${runId}/approvals`, body),
    ),
  );
  for (const status of statuses) record(control.approvals, runId, status);
}
