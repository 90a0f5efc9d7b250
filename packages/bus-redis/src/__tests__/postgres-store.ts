import { randomBytes } from 'node:crypto';
import { createAgentRuntimeStore } from '@runlight/runtime';
import { createPostgresDriver, migrate } from '@runlight/store-postgres';
import pg from 'pg';

/**
 * The durable store the buses point into: the PostgreSQL server at 127.0.0.1:5432 (database
 * `test`, trust auth; `PGPORT`/`PGUSER` move it), one fresh schema per suite, dropped after.
 */
const SERVER = { host: '127.0.0.1', port: Number(process.env.PGPORT ?? 5432), database: 'test' };

async function findUser(): Promise<string | { reason: string }> {
  let reason = '';
  for (const user of [process.env.PGUSER, 'postgres', 'root']) {
    if (!user) continue;
    const client = new pg.Client({ ...SERVER, user, connectionTimeoutMillis: 2_000 });
    try {
      await client.connect();
      return user;
    } catch (error) {
      reason = error instanceof Error ? error.message : String(error);
    } finally {
      await client.end().catch(() => {});
    }
  }
  return { reason };
}

const user = await findUser();
export const postgresUnavailable: string | null =
  typeof user === 'string' ? null : `PostgreSQL did not answer (${user.reason})`;
if (postgresUnavailable) console.warn(`Redis bus tests not run: ${postgresUnavailable}`);

export function postgresUrl(): string {
  if (typeof user !== 'string') throw new Error(postgresUnavailable!);
  return `postgres://${user}@${SERVER.host}:${SERVER.port}/${SERVER.database}`;
}

/** A pool, a fresh migrated schema and a store on it; `close` drops the schema. */
export async function openPostgresStore() {
  const pool = new pg.Pool({ connectionString: postgresUrl(), max: 8 });
  pool.on('error', () => {});
  const schema = `rl_test_redis_${randomBytes(4).toString('hex')}`;
  await migrate(pool, { schema });
  const store = createAgentRuntimeStore(createPostgresDriver({ client: pool, schema }));
  return {
    pool,
    schema,
    store,
    async close() {
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await pool.end();
    },
  };
}
