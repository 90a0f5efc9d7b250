/**
 * Recovery latency: from a dead owner's lease expiry to the recovered run's next durable event
 * (the recoverer's `acquired`), with one recoverer polling every INTERVAL_MS, for 1 and 100
 * expired runs, on the memory driver and on PostgreSQL (PGlite; the server at 127.0.0.1:5432
 * when it answers). Prints a table with each figure's ratio to "memory, 1 run" of the same run.
 *
 *   npx tsx packages/store-postgres/bench/recovery-latency.ts
 *
 * The poll interval bounds the wait (on average half of it); the rest is the takeover itself:
 * the expired-lease query, the acquire compare-and-set, the checkpoint read.
 */
import {
  type AgentRuntimeDriver,
  createAgentRuntime,
  createAgentRuntimeStore,
  createMemoryDriver,
  createRunRecovery,
} from '@runlight/runtime';
import { OwnedRun } from '@runlight/runtime/driver';
import { scriptedModel } from '@runlight/runtime/testing';
import { openPglite, openServer, serverUnavailable } from '../src/__tests__/test-databases';
import { createPostgresDriver } from '../src/postgres-driver';

const INTERVAL_MS = 100;
const DEAD_LEASE_MS = 300;

async function measure(driver: AgentRuntimeDriver, runs: number): Promise<number[]> {
  const store = createAgentRuntimeStore(driver);
  const prefix = `bench-${runs}-${Date.now().toString(36)}`;
  const expiries = new Map<string, number>();
  for (let index = 0; index < runs; index++) {
    const runId = `${prefix}-${index}`;
    await store.createRun({ runId });
    const dead = new OwnedRun(
      store,
      await store.acquireRun(runId, { owner: 'dead', leaseMs: DEAD_LEASE_MS }),
    );
    const run = await dead.recordRunOperation({
      id: 'model-request:step-0',
      kind: 'model-request',
      phase: 'started',
      step: 0,
      startedAt: new Date().toISOString(),
    });
    expiries.set(runId, Date.parse(run.leaseExpiresAt!));
  }
  const runtime = createAgentRuntime({
    store: createAgentRuntimeStore(driver),
    owner: 'recoverer',
    onLog: () => {},
  });
  const latencies: number[] = [];
  const done = new Promise<void>((resolve) => {
    for (const runId of expiries.keys()) {
      const unsubscribe = runtime.subscribe(runId, (event) => {
        if (event.type === 'run-delta') return;
        latencies.push(Date.now() - expiries.get(runId)!);
        unsubscribe();
        if (latencies.length === runs) resolve();
      });
    }
  });
  const recovery = createRunRecovery({
    store,
    runtime,
    intervalMs: INTERVAL_MS,
    batchSize: 100,
    resolveRun: () => ({
      model: scriptedModel([{ text: 'done' }]),
      messages: [{ role: 'user', content: 'Hi' }],
    }),
  });
  recovery.start();
  await done;
  await recovery.stop();
  await new Promise((resolve) => setTimeout(resolve, 500)); // let the executions finish
  return latencies.sort((a, b) => a - b);
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

const targets: {
  name: string;
  open: () => Promise<{ driver: AgentRuntimeDriver; close: () => Promise<void> }>;
}[] = [
  { name: 'memory', open: async () => ({ driver: createMemoryDriver(), close: async () => {} }) },
  {
    name: 'PGlite',
    open: async () => {
      const db = await openPglite();
      return {
        driver: createPostgresDriver({ client: db.client, schema: await db.freshSchema() }),
        close: db.close,
      };
    },
  },
];
if (serverUnavailable === null) {
  targets.push({
    name: 'PostgreSQL server',
    open: async () => {
      const db = await openServer();
      return {
        driver: createPostgresDriver({ client: db.client, schema: await db.freshSchema() }),
        close: db.close,
      };
    },
  });
}

// The recovery timer is unref'd (it never keeps a server alive): this script keeps itself alive.
const keepAlive = setInterval(() => {}, 1_000);
const rows: Record<string, string | number>[] = [];
let baseline = 0;
for (const target of targets) {
  for (const runs of [1, 100]) {
    const { driver, close } = await target.open();
    const sorted = await measure(driver, runs);
    await close();
    const p50 = percentile(sorted, 0.5);
    if (baseline === 0) baseline = Math.max(1, p50);
    rows.push({
      store: target.name,
      'expired runs': runs,
      'p50 ms': p50,
      'p95 ms': percentile(sorted, 0.95),
      'max ms': sorted.at(-1)!,
      'p50 / memory·1': (p50 / baseline).toFixed(2),
    });
  }
}
console.log(
  `Lease expiry → recovered run's next durable event (one recoverer, poll every ${INTERVAL_MS} ms)`,
);
console.table(rows);
clearInterval(keepAlive);
process.exit(0);
