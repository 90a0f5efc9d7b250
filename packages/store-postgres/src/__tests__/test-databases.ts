import { randomBytes } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { migrate } from '../migrate';
import { type PostgresClient, toSqlClient } from '../sql-client';

/**
 * The databases the tests run on: PGlite always, the PostgreSQL server at 127.0.0.1:5432
 * (database `test`, trust auth) when it answers. Every test gets its own schema, dropped after.
 */
export interface TestDatabase {
  name: string;
  client: PostgresClient;
  /** A fresh, migrated schema unique to this test run. */
  freshSchema(): Promise<string>;
  /** Drops every schema this database handed out and closes the client. */
  close(): Promise<void>;
}

/** `PGPORT` moves it (e.g. to prove the server suites skip visibly when nothing answers). */
const SERVER = { host: '127.0.0.1', port: Number(process.env.PGPORT ?? 5432), database: 'test' };
const ADDRESS = `${SERVER.host}:${SERVER.port}/${SERVER.database}`;

function track(name: string, client: PostgresClient, closeClient: () => Promise<void>) {
  const schemas: string[] = [];
  const database: TestDatabase = {
    name,
    client,
    async freshSchema() {
      const schema = `rl_test_${process.pid}_${randomBytes(4).toString('hex')}`;
      schemas.push(schema);
      await migrate(client, { schema });
      return schema;
    },
    async close() {
      const sql = toSqlClient(client);
      for (const schema of schemas) {
        await sql.query({ text: `DROP SCHEMA IF EXISTS "${schema}" CASCADE` });
      }
      await closeClient();
    },
  };
  return database;
}

export async function openPglite(): Promise<TestDatabase> {
  const db = await PGlite.create();
  return track('PGlite', db, () => db.close());
}

/** Connection options of the test server: the first of `postgres` or `root` that connects. */
async function findServerUser(): Promise<{ user: string } | { reason: string }> {
  let reason = '';
  for (const user of [process.env.PGUSER, 'postgres', 'root']) {
    if (!user) continue;
    const client = new pg.Client({ ...SERVER, user, connectionTimeoutMillis: 2_000 });
    try {
      await client.connect();
      await client.query('SELECT 1');
      return { user };
    } catch (error) {
      reason = error instanceof Error ? error.message : String(error);
    } finally {
      await client.end().catch(() => {});
    }
  }
  return { reason };
}

const probe = await findServerUser();

/** Why the server tests do not run, or null when the server answers. */
export const serverUnavailable: string | null =
  'reason' in probe ? `${ADDRESS} did not answer (${probe.reason})` : null;
if (serverUnavailable) console.warn(`PostgreSQL server tests not run: ${serverUnavailable}`);

export const serverLabel = serverUnavailable
  ? `PostgreSQL server (not run: ${serverUnavailable})`
  : `PostgreSQL server at ${ADDRESS}`;

export function serverPoolConfig(): pg.PoolConfig {
  if ('reason' in probe) throw new Error(`no server: ${probe.reason}`);
  return { ...SERVER, user: probe.user, max: 10 };
}

export async function openServer(): Promise<TestDatabase> {
  const pool = new pg.Pool(serverPoolConfig());
  return track('server', pool, () => pool.end());
}

/**
 * One database for every suite of a test file (PGlite boots in seconds, per worker): each
 * suite "opens" a view whose `close` does nothing; `close` of the result drops everything.
 */
export function sharedDatabase(open: () => Promise<TestDatabase>) {
  let opened: Promise<TestDatabase> | null = null;
  return {
    async open(): Promise<TestDatabase> {
      opened ??= open();
      return { ...(await opened), close: async () => {} };
    },
    async close(): Promise<void> {
      if (opened) await (await opened).close();
    },
  };
}
