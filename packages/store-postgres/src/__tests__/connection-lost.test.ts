import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { isConnectionLost, isReadOnlyStatement } from '../connection-lost';
import { toSqlClient } from '../sql-client';
import { serverLabel, serverPoolConfig, serverUnavailable } from './test-databases';

describe('isReadOnlyStatement', () => {
  it.each([
    ['SELECT 1', true],
    ['  select r.record FROM runs r', true],
    ['SELECT pg_notify($1, $2)', false],
    ['SELECT id FROM runs WHERE id = $1 FOR UPDATE', false],
    ['UPDATE runs SET x = 1', false],
    ['WITH written AS (INSERT INTO t VALUES (1) RETURNING 1) SELECT 1', false],
    ['INSERT INTO t VALUES (1)', false],
  ])('%s → %s', (text, expected) => {
    expect(isReadOnlyStatement(text)).toBe(expected);
  });
});

describe('isConnectionLost', () => {
  it.each([
    [{ code: '57P01', message: 'terminating connection due to administrator command' }, true],
    [{ code: '08006' }, true],
    [new Error('Connection terminated unexpectedly'), true],
    [{ code: 'ECONNRESET' }, true],
    [{ code: '23505', message: 'duplicate key' }, false],
    [{ code: '40001' }, false],
    [new Error('boom'), false],
    [null, false],
  ])('%o → %s', (error, expected) => {
    expect(isConnectionLost(error)).toBe(expected);
  });
});

describe.runIf(serverUnavailable === null)(`a pool whose backend is ended (${serverLabel})`, () => {
  const pools: pg.Pool[] = [];
  afterEach(async () => {
    for (const pool of pools.splice(0)) await pool.end().catch(() => {});
  });

  /** A pool of one connection tagged so the test can end its backend from outside. */
  function openPool(tag: string) {
    const pool = new pg.Pool({ ...serverPoolConfig(), max: 1, application_name: tag });
    pool.on('error', () => {}); // the ended backend's idle client: the pool replaces it
    pools.push(pool);
    return pool;
  }

  async function terminate(tag: string) {
    const admin = new pg.Client(serverPoolConfig());
    await admin.connect();
    try {
      const { rows } = await admin.query<{ pid: number }>(
        'SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()',
        [tag],
      );
      for (const { pid } of rows) await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      return rows.length;
    } finally {
      await admin.end();
    }
  }

  it('answers a read whose backend is terminated mid-statement, on a new connection', async () => {
    const tag = `rl-lost-read-${process.pid}-${Date.now()}`;
    const sql = toSqlClient(openPool(tag));
    const answer = sql.query<{ one: number }>({ text: 'SELECT pg_sleep(0.5), 1 AS one' });
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(await terminate(tag)).toBe(1);
    expect((await answer).map((row) => row.one)).toEqual([1]);
  });

  it('never repeats a write whose backend is terminated mid-statement', async () => {
    const tag = `rl-lost-write-${process.pid}-${Date.now()}`;
    const pool = openPool(tag);
    const sql = toSqlClient(pool);
    const table = `rl_lost_${process.pid}_${Date.now()}`;
    await sql.query({ text: `CREATE TABLE ${table} (n integer)` });
    try {
      // Observed at once: the rejection lands while the test is still ending the backend.
      const write = sql.query({ text: `INSERT INTO ${table} SELECT 1 FROM pg_sleep(0.5)` }).then(
        () => null,
        (error: unknown) => error,
      );
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(await terminate(tag)).toBe(1);
      expect(isConnectionLost(await write)).toBe(true);
      const rows = await sql.query<{ count: number }>({
        text: `SELECT count(*)::integer AS count FROM ${table}`,
      });
      expect(rows[0]!.count).toBe(0);
    } finally {
      await sql.query({ text: `DROP TABLE IF EXISTS ${table}` });
    }
  });
});
