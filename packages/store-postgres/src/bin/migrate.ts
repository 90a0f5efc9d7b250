#!/usr/bin/env node
/**
 * `runlight-postgres-migrate` — creates or updates the Runlight tables once per deploy, before
 * the new processes start (which then pass `migrate: false`). Idempotent: a second run changes
 * nothing. Reads `DATABASE_URL` (then node-postgres's `PG*` variables) and `RUNLIGHT_SCHEMA`
 * (default `runlight`); `--schema <name>` wins over the variable. Exits 0 once migrated, 1 with
 * the reason otherwise (a code and message: never a connection string).
 */
import { parseArgs } from 'node:util';
import pg from 'pg';
import { DEFAULT_SCHEMA, migrate } from '../migrate';

const USAGE = `Usage: runlight-postgres-migrate [--schema <name>]

Creates or updates the Runlight tables in DATABASE_URL (idempotent).
  --schema <name>  the schema (default: $RUNLIGHT_SCHEMA, else ${DEFAULT_SCHEMA})`;

async function main(): Promise<number> {
  let values: { schema?: string | undefined; help?: boolean | undefined };
  try {
    ({ values } = parseArgs({
      options: { schema: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    }));
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const schema = values.schema ?? (process.env.RUNLIGHT_SCHEMA || DEFAULT_SCHEMA);
  const pool = new pg.Pool({
    connectionString: process.env.DATABASE_URL,
    max: 1,
    connectionTimeoutMillis: 10_000,
  });
  pool.on('error', () => {}); // an idle connection closed: the query that needs one fails
  try {
    await migrate(pool, { schema });
    console.log(`runlight-postgres-migrate: schema "${schema}" is up to date`);
    return 0;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const message = error instanceof Error ? error.message : String(error);
    console.error(
      `runlight-postgres-migrate: failed${typeof code === 'string' ? ` (${code})` : ''}: ${message}`,
    );
    return 1;
  } finally {
    await pool.end().catch(() => {});
  }
}

process.exitCode = await main();
