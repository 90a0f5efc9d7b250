import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverLabel, serverPoolConfig, serverUnavailable } from './test-databases';

const BIN = fileURLToPath(new URL('../bin/migrate.ts', import.meta.url));

/** `runlight-postgres-migrate` with `env` and `args`, as a deploy step runs it. */
const migrateBin = (env: Record<string, string>, args: string[] = []) =>
  new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = fork(BIN, args, {
      execArgv: ['--import', 'tsx', '--conditions=@runlight/source'],
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    let output = '';
    child.stdout?.on('data', (chunk) => (output += chunk));
    child.stderr?.on('data', (chunk) => (output += chunk));
    child.once('exit', (code) => resolve({ code, output }));
  });

describe('the runlight-postgres-migrate bin', () => {
  it('is what the package publishes as its bin (built from this file)', async () => {
    const manifest = JSON.parse(
      await readFile(new URL('../../package.json', import.meta.url), 'utf8'),
    ) as { bin: Record<string, string> };
    expect(manifest.bin).toEqual({ 'runlight-postgres-migrate': './dist/bin/migrate.js' });
    const build = await readFile(new URL('../../tsdown.config.ts', import.meta.url), 'utf8');
    expect(build).toContain("'bin/migrate': 'src/bin/migrate.ts'");
  });

  it('exits 1 with the reason (a code, no connection string) when the database is unreachable', async () => {
    const result = await migrateBin({ DATABASE_URL: 'postgres://someone:secret@127.0.0.1:1/app' });
    expect(result.code).toBe(1);
    expect(result.output).toContain('ECONNREFUSED');
    expect(result.output).not.toContain('secret');
  });
});

describe.runIf(serverUnavailable === null)(`runlight-postgres-migrate (${serverLabel})`, () => {
  const schema = `rl_bin_${process.pid}_${randomBytes(3).toString('hex')}`;
  let admin: pg.Pool;
  let env: Record<string, string>;
  beforeAll(() => {
    const config = serverPoolConfig();
    admin = new pg.Pool({ ...config, max: 2 });
    admin.on('error', () => {});
    env = {
      DATABASE_URL: `postgres://${config.user}@${config.host}:${config.port}/${config.database}`,
      RUNLIGHT_SCHEMA: schema,
    };
  });
  afterAll(async () => {
    await admin?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin?.end();
  });

  const tables = async () =>
    (
      await admin.query<{ table_name: string }>(
        'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1',
        [schema],
      )
    ).rows.map((row) => row.table_name);

  it('creates the tables once and changes nothing when run again (the rows stay)', async () => {
    const first = await migrateBin(env);
    expect(first, first.output).toMatchObject({ code: 0 });
    expect(first.output).toContain(`schema "${schema}" is up to date`);
    expect(await tables()).toEqual(
      expect.arrayContaining(['run_control_requests', 'run_events', 'run_inputs', 'runs']),
    );
    await admin.query(
      `INSERT INTO "${schema}".runs (id, revision, status, updated_at) VALUES ('kept', 1, 'queued', now())`,
    );
    const before = await tables();
    const second = await migrateBin(env);
    expect(second, second.output).toMatchObject({ code: 0 });
    expect(await tables()).toEqual(before);
    const kept = await admin.query(`SELECT id FROM "${schema}".runs`);
    expect(kept.rows).toEqual([{ id: 'kept' }]);
  });

  it('refuses a --schema that is not an identifier (the flag wins over RUNLIGHT_SCHEMA)', async () => {
    const refused = await migrateBin(env, ['--schema', 'Not-An-Identifier']);
    expect(refused.code).toBe(1);
    expect(refused.output).toContain('must be a lower-case SQL identifier');
  });
});
