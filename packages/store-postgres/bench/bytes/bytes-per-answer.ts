/**
 * Issue 39 benchmark: bytes written per answer, printed.
 *
 *   pnpm bench:bytes                 (root script; the PostgreSQL part skips when no server answers)
 *   pnpm bench:bytes --runs 40,8,2   (runs per size on PostgreSQL; default 40,8,2)
 *
 * One answer of 200, 2,000 and 20,000 text tokens of ~4 bytes (`'w' + (i % 89) + ' '`), through
 * a real runtime (scripted model, default checkpoint cadence), with three figures per size, each
 * ÷ the final assistant message (its JSON bytes):
 *
 * 1. bytes passed to the store driver — every snapshot record and event handed to
 *    `compareAndSet`, as JSON (the memory driver; `countingDriver`), split into the assistant
 *    events, the other events and the records;
 * 2. PostgreSQL table growth — `pg_total_relation_size` of the Runlight tables of a fresh schema
 *    after `runs` answers, minus the migrated empty schema (the PostgreSQL server at
 *    127.0.0.1:5432, database `test`, trust auth; `PGPORT` moves it);
 * 3. PostgreSQL WAL — `pg_current_wal_lsn()` after − before the answers (the whole server's WAL:
 *    other clients' writes meanwhile count too, so read it beside the next column), and the WAL
 *    of the answers' own transactions (`pg_walinspect`: the records of every transaction that
 *    touched a table of the schema, its commit included; full-page images included, so the
 *    figure moves with where the server's checkpoints fall).
 */
import type { AgentRuntimeDriver } from '@runlight/runtime';
import { createAgentRuntime, createAgentRuntimeStore, createMemoryDriver } from '@runlight/runtime';
import { countingDriver } from '@runlight/runtime/test-kit';
import { scriptedModel } from '@runlight/runtime/testing';
import pg from 'pg';
import { migrate, runlightTables } from '../../src/migrate';
import { createPostgresDriver } from '../../src/postgres-driver';

const SIZES = [200, 2_000, 20_000];
const runsArg = process.argv.indexOf('--runs');
const RUNS = runsArg > 0 ? process.argv[runsArg + 1]!.split(',').map(Number) : [40, 8, 2];

/** `count` text tokens of ~4 bytes: `w0 ` … `w88 `. */
const shortTokens = (count: number) => Array.from({ length: count }, (_, i) => `w${i % 89} `);

/** One answer of `tokens` short tokens through a runtime over `driver`. */
async function answer(driver: AgentRuntimeDriver, runId: string, tokens: number) {
  const store = createAgentRuntimeStore(driver);
  const runtime = createAgentRuntime({ store, owner: 'worker-a', onLog: () => {} });
  const run = await runtime.startRun({
    runId,
    model: scriptedModel([{ text: shortTokens(tokens) }]),
    messages: [{ role: 'user', content: 'Go' }],
  }).done;
  if (run.status !== 'completed') throw new Error(`run ${runId} ended ${run.status}`);
  const message = (await store.getSnapshot(runId)).assistant?.message;
  return JSON.stringify(message).length;
}

const ratio = (bytes: number, final: number) => (bytes / final).toFixed(2);

async function driverBytes() {
  const rows = [];
  for (const tokens of SIZES) {
    const { driver, counts } = countingDriver(createMemoryDriver());
    const final = await answer(driver, `bytes-${tokens}`, tokens);
    const other = counts.bytes - counts.recordBytes - counts.assistantBytes;
    rows.push({
      tokens,
      'final message B': final,
      writes: counts.writes,
      'bytes to driver': counts.bytes,
      'bytes ÷ final': ratio(counts.bytes, final),
      'assistant events ÷ final': ratio(counts.assistantBytes, final),
      'other events ÷ final': ratio(other, final),
      'records ÷ final': ratio(counts.recordBytes, final),
    });
  }
  console.log('\nBytes passed to the store driver per answer, ~4-byte tokens (memory driver)');
  console.table(rows);
}

async function serverPool(): Promise<pg.Pool | string> {
  const config = {
    host: '127.0.0.1',
    port: Number(process.env.PGPORT ?? 5432),
    database: 'test',
    user: process.env.PGUSER ?? 'postgres',
    max: 4,
  };
  const pool = new pg.Pool(config);
  pool.on('error', () => {});
  try {
    await pool.query('SELECT 1');
    return pool;
  } catch (error) {
    await pool.end().catch(() => {});
    return `${config.host}:${config.port}/test did not answer (${(error as Error).message})`;
  }
}

async function tableBytes(pool: pg.Pool, schema: string) {
  const tables = runlightTables({ schema });
  let total = 0;
  for (const table of Object.values(tables).slice(1)) {
    const { rows } = await pool.query(`SELECT pg_total_relation_size('${table}')::bigint AS size`);
    total += Number(rows[0].size);
  }
  return total;
}

/** The WAL of the transactions that touched a relation of `schema` between two LSNs. */
async function schemaWal(pool: pg.Pool, schema: string, from: string, to: string) {
  const { rows: nodes } = await pool.query<{ node: string }>(
    `SELECT pg_relation_filenode(c.oid)::text AS node FROM pg_class c
     JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1
     UNION SELECT pg_relation_filenode(t.oid)::text FROM pg_class c
     JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_class t ON t.oid = c.reltoastrelid
     WHERE n.nspname = $1
     UNION SELECT pg_relation_filenode(i.indexrelid)::text FROM pg_class c
     JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_index i ON i.indrelid = c.reltoastrelid
     WHERE n.nspname = $1`,
    [schema],
  );
  const { rows } = await pool.query<{ bytes: string }>(
    `WITH records AS (SELECT * FROM pg_get_wal_records_info($1::pg_lsn, $2::pg_lsn)),
     ours AS (
       SELECT DISTINCT xid FROM records
       WHERE xid <> '0' AND substring(block_ref from 'rel \\d+/\\d+/(\\d+)') = ANY($3::text[])
     )
     SELECT coalesce(sum(record_length), 0)::bigint AS bytes FROM records
     WHERE xid IN (SELECT xid FROM ours)`,
    [from, to, nodes.map((row) => row.node)],
  );
  return Number(rows[0]!.bytes);
}

async function postgresBytes() {
  const pool = await serverPool();
  if (typeof pool === 'string') {
    console.log(`\nPostgreSQL figures not measured: ${pool}`);
    return;
  }
  let walinspect = true;
  try {
    await pool.query('CREATE EXTENSION IF NOT EXISTS pg_walinspect');
  } catch {
    walinspect = false;
  }
  const rows = [];
  const schemas: string[] = [];
  try {
    for (const [index, tokens] of SIZES.entries()) {
      const runs = RUNS[index] ?? 1;
      const schema = `rl_bytes_${process.pid}_${tokens}`;
      schemas.push(schema);
      await migrate(pool, { schema });
      const empty = await tableBytes(pool, schema);
      const driver = createPostgresDriver({ client: pool, schema });
      const lsn = async () =>
        (await pool.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0]!
          .lsn;
      const diff = async (from: string, to: string) =>
        Number(
          (await pool.query(`SELECT ($2::pg_lsn - $1::pg_lsn)::bigint AS d`, [from, to])).rows[0].d,
        );
      const before = await lsn();
      let final = 0;
      for (let run = 0; run < runs; run++) final += await answer(driver, `run-${run}`, tokens);
      const after = await lsn();
      const table = (await tableBytes(pool, schema)) - empty;
      const wal = await diff(before, after);
      const ownWal = walinspect ? await schemaWal(pool, schema, before, after) : Number.NaN;
      rows.push({
        tokens,
        runs,
        'final message B (all runs)': final,
        'table growth ÷ final': ratio(table, final),
        'WAL (server) ÷ final': ratio(wal, final),
        'WAL (own transactions) ÷ final': walinspect ? ratio(ownWal, final) : 'no pg_walinspect',
      });
    }
  } finally {
    for (const schema of schemas) await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  }
  console.log('\nPostgreSQL server per answer: table growth and WAL ÷ final message');
  console.table(rows);
}

await driverBytes();
await postgresBytes();
