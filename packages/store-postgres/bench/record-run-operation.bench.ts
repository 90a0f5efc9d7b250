/**
 * Issue 7 benchmark: `recordRunOperation` per second on PGlite and on the PostgreSQL server,
 * for 1 run and for 50 concurrent runs, beside the memory driver and beside a raw single-row
 * compare-and-set `UPDATE` on the same database.
 *
 *   npx vitest bench --run --project store-postgres        (or: pnpm bench --project store-postgres)
 *
 * Vitest prints ops/s per entry and, per group, how many times faster the fastest entry is.
 * The figure of the issue is the group "one run on the server": store ops/s ÷ raw UPDATE ops/s
 * (goal ≥ 0.7). In the "50 concurrent runs" group one iteration is 50 operations: multiply
 * its ops/s by 50. Server entries are left out (and say so) when 127.0.0.1:5432 does not answer.
 */
import { PGlite } from '@electric-sql/pglite';
import type { RunOperation } from '@runlight/protocol';
import {
  type AgentRuntimeDriver,
  createAgentRuntimeStore,
  createMemoryDriver,
} from '@runlight/runtime';
import { OwnedRun, RunMutationQueue } from '@runlight/runtime/driver';
import pg from 'pg';
import { afterAll, bench, describe } from 'vitest';
import { migrate } from '../src/migrate';
import { createPostgresDriver } from '../src/postgres-driver';
import { type PostgresClient, toSqlClient } from '../src/sql-client';

const AT = '2026-12-02T12:00:00.000Z';
/** A run is replaced after this many operations so its record (operation ids) stays small. */
const OPERATIONS_PER_RUN = 150;
const CONCURRENT_RUNS = 50;
const SCHEMA = `rl_bench_${process.pid}`;
/**
 * Longer than Vitest's defaults: the machine is shared, a database is noisy, and the store path
 * must be JIT-warm before it is compared with a bare statement.
 */
const TIME = { time: 3_000, warmupTime: 1_000 };

/** started → first-output → completed, then the next step: always a valid transition. */
function operationAt(index: number): RunOperation {
  const step = Math.floor(index / 3);
  const phase = (['started', 'first-output', 'completed'] as const)[index % 3]!;
  const operation: RunOperation = {
    id: `model-request:step-${step}:bench`,
    kind: 'model-request',
    phase,
    step,
    startedAt: AT,
  };
  if (phase !== 'started') operation.firstOutputAt = AT;
  if (phase === 'completed') operation.endedAt = AT;
  return operation;
}

/** Records operations on one acquired run after another, as the runner's OwnedRun does. */
function recorder(driver: AgentRuntimeDriver, name: string, queue = new RunMutationQueue()) {
  const store = createAgentRuntimeStore(driver);
  let generation = 0;
  let owned: OwnedRun | null = null;
  let index = 0;
  return async () => {
    if (owned === null || index === OPERATIONS_PER_RUN) {
      const runId = `${name}-${generation++}`;
      await store.createRun({ runId });
      const run = await store.acquireRun(runId, { owner: 'bench', leaseMs: 3_600_000 });
      owned = new OwnedRun(store, run, { queue });
      index = 0;
    }
    await owned.recordRunOperation(operationAt(index++));
  };
}

/** The baseline: a bare compare-and-set of one row carrying a document of a run's size. */
async function rawCompareAndSet(client: PostgresClient, name: string) {
  const sql = toSqlClient(client);
  const table = `"${SCHEMA}"."raw_runs"`;
  await sql.query({
    text: `CREATE TABLE IF NOT EXISTS ${table} (id text PRIMARY KEY, revision integer NOT NULL, record json NOT NULL)`,
  });
  const store = createAgentRuntimeStore(createMemoryDriver());
  await store.createRun({ runId: 'size' });
  const run = await store.acquireRun('size', { owner: 'bench', leaseMs: 1 });
  // The size of the store's record halfway through a run's operations (its average).
  const operationIds = Array.from(
    { length: OPERATIONS_PER_RUN / 6 },
    (_, i) => operationAt(i * 3).id,
  );
  const document = JSON.stringify({ run, assistant: null, lease: {}, operationIds });
  await sql.query({
    text: `INSERT INTO ${table} VALUES ($1, 0, $2) ON CONFLICT (id) DO NOTHING`,
    values: [name, document],
  });
  let revision = 0;
  return async () => {
    const rows = await sql.query<{ id: string }>({
      name: `raw_cas_${SCHEMA}`,
      text: `UPDATE ${table} SET revision = $3, record = $4::json WHERE id = $1 AND revision = $2 RETURNING id`,
      values: [name, revision, revision + 1, document],
    });
    if (rows.length !== 1) throw new Error('raw compare-and-set lost');
    revision++;
  };
}

async function openServer(): Promise<pg.Pool | null> {
  for (const user of [process.env.PGUSER, 'postgres', 'root']) {
    if (!user) continue;
    const pool = new pg.Pool({
      host: '127.0.0.1',
      port: 5432,
      database: 'test',
      user,
      max: 10,
      connectionTimeoutMillis: 2_000,
    });
    try {
      await pool.query('SELECT 1');
      return pool;
    } catch {
      await pool.end();
    }
  }
  console.warn('bench: PostgreSQL at 127.0.0.1:5432/test did not answer; server entries left out');
  return null;
}

const pglite = await PGlite.create();
const server = await openServer();
for (const client of [pglite, server]) if (client) await migrate(client, { schema: SCHEMA });
const drivers = {
  memory: createMemoryDriver(),
  pglite: createPostgresDriver({ client: pglite, schema: SCHEMA }),
  server: server ? createPostgresDriver({ client: server, schema: SCHEMA }) : null,
};

afterAll(async () => {
  for (const client of [pglite, server]) {
    if (client) await toSqlClient(client).query({ text: `DROP SCHEMA "${SCHEMA}" CASCADE` });
  }
  await server?.end();
  await pglite.close();
});

// First: it also warms the store path of every driver for the comparisons after it.
describe('one run: recordRunOperation on each driver', () => {
  bench('memory driver', recorder(drivers.memory, 'memory-one'));
  bench('PGlite', recorder(drivers.pglite, 'pglite-one-b'));
  if (drivers.server) bench('PostgreSQL server', recorder(drivers.server, 'server-one-b'));
});

describe.runIf(server !== null)(
  'one run on the server: recordRunOperation vs raw UPDATE',
  async () => {
    const raw = await rawCompareAndSet(server!, 'server-raw');
    const store = recorder(drivers.server!, 'server-one');
    bench('raw compare-and-set UPDATE (baseline)', raw);
    bench('recordRunOperation (OwnedRun → store → driver)', store);
  },
);

describe('one run on PGlite: recordRunOperation vs raw UPDATE', async () => {
  const raw = await rawCompareAndSet(pglite, 'pglite-raw');
  const store = recorder(drivers.pglite, 'pglite-one');
  bench('raw compare-and-set UPDATE (baseline)', raw, TIME);
  bench('recordRunOperation (OwnedRun → store → driver)', store, TIME);
});

describe(`${CONCURRENT_RUNS} concurrent runs: ${CONCURRENT_RUNS} recordRunOperation per iteration`, async () => {
  const concurrently = (driver: AgentRuntimeDriver, name: string) => {
    const queue = new RunMutationQueue();
    const runs = Array.from({ length: CONCURRENT_RUNS }, (_, i) =>
      recorder(driver, `${name}-${i}`, queue),
    );
    return async () => {
      await Promise.all(runs.map((record) => record()));
    };
  };
  bench('memory driver', concurrently(drivers.memory, 'memory-many'));
  bench('PGlite', concurrently(drivers.pglite, 'pglite-many'));
  if (drivers.server) {
    bench('PostgreSQL server', concurrently(drivers.server, 'server-many'));
    const raws = await Promise.all(
      Array.from({ length: CONCURRENT_RUNS }, (_, i) =>
        rawCompareAndSet(server!, `server-raw-${i}`),
      ),
    );
    bench('PostgreSQL server, raw compare-and-set UPDATE (baseline)', async () => {
      await Promise.all(raws.map((raw) => raw()));
    });
  }
});
