import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { createAgentRuntimeStore } from '@runlight/runtime';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPostgresDriver } from '../postgres-driver';
import { LIVENESS_PROBE_SQL, toSqlClient } from '../sql-client';
import { readEventStream } from './instance';
import {
  openServer,
  serverLabel,
  serverPoolConfig,
  serverUnavailable,
  type TestDatabase,
} from './test-databases';

const CHILD = fileURLToPath(new URL('./deployment-child.ts', import.meta.url));

/** A deployment process of its own (see deployment-child.ts) and how it ended, if it did. */
async function startChild(connectionString: string, schema: string) {
  const child = spawn(
    process.execPath,
    [
      '--unhandled-rejections=strict',
      '--import',
      'tsx',
      CHILD,
      JSON.stringify({ connectionString, schema }),
    ],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  const lines: string[] = [];
  let stderr = '';
  let buffered = '';
  child.stdout!.on('data', (chunk) => {
    buffered += chunk;
    for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
      lines.push(buffered.slice(0, end));
      buffered = buffered.slice(end + 1);
    }
  });
  child.stderr!.on('data', (chunk) => {
    stderr += chunk;
  });
  let exit: string | null = null;
  child.on('exit', (code, signal) => {
    exit = `${signal ?? code}`;
  });
  const alive = () => {
    if (exit !== null) throw new Error(`the process exited (${exit}): ${stderr}`);
  };
  await vi.waitFor(
    () => {
      alive();
      expect(lines.length).toBeGreaterThan(0);
    },
    { timeout: 30_000, interval: 50 },
  );
  const { origin } = JSON.parse(lines[0]!) as { origin: string };
  return { child, origin, lines, alive, stderr: () => stderr };
}

describe.runIf(serverUnavailable === null)(
  `a connectPostgresDeployment process (${serverLabel})`,
  () => {
    let database: TestDatabase;
    const children: ChildProcess[] = [];
    beforeAll(async () => {
      database = await openServer();
    });
    afterEach(() => {
      for (const child of children.splice(0)) child.kill('SIGKILL');
    });
    afterAll(async () => {
      await database?.close();
    });

    it('survives pg_terminate_backend of its idle pooled connections and of its LISTEN connection, and keeps serving and publishing', async () => {
      const schema = await database.freshSchema();
      const config = serverPoolConfig();
      const applicationName = `rl-deploy-${randomBytes(4).toString('hex')}`;
      const connectionString = `postgres://${config.user}@${config.host}:${config.port}/${config.database}?application_name=${applicationName}`;
      const child = await startChild(connectionString, schema);
      children.push(child.child);
      const sql = toSqlClient(database.client);
      const backends = () =>
        sql.query<{ pid: number; query: string }>({
          text: 'SELECT pid, query FROM pg_stat_activity WHERE application_name = $1',
          values: [applicationName],
        });
      const before = await backends();
      expect(before.length).toBeGreaterThan(1); // the LISTEN connection and idle ones
      // Only these pids: a `WHERE name = … AND pg_terminate_backend(pid)` may be evaluated in
      // any order and end every backend of the server.
      const killed = await sql.query<{ pid: number }>({
        text: 'SELECT pid FROM unnest($1::integer[]) AS pid WHERE pg_terminate_backend(pid)',
        values: [before.map((row) => row.pid)],
      });
      expect(killed).toHaveLength(before.length);

      // It listens again on a new connection, and is still alive.
      const killedPids = new Set(killed.map((row) => row.pid));
      await vi.waitFor(
        async () => {
          child.alive();
          const listening = (await backends()).filter(
            (row) =>
              !killedPids.has(row.pid) &&
              (row.query.startsWith('LISTEN ') || row.query === LIVENESS_PROBE_SQL),
          );
          expect(listening).toHaveLength(1);
        },
        { timeout: 20_000, interval: 100 },
      );

      // It serves a watcher, executes a run and publishes it to that watcher.
      const store = createAgentRuntimeStore(
        createPostgresDriver({ client: database.client, schema }),
      );
      await store.createRun({ runId: 'after-faults' });
      const watched = readEventStream(`${child.origin}/runs/after-faults/events`);
      child.child.stdin!.write('after-faults\n');
      const events = (await watched).map((message) => message.event);
      expect(events.filter((event) => event.type !== 'run-delta')).toEqual(
        await store.readEvents('after-faults'),
      );
      await vi.waitFor(() => {
        child.alive();
        expect(child.lines.slice(1).map((line) => JSON.parse(line))).toEqual([
          { runId: 'after-faults', status: 'completed' },
        ]);
      });
      // Each loss was reported to onError, none was unhandled.
      expect(child.stderr()).toMatch(/onError: /);
      expect(child.stderr()).not.toMatch(/Unhandled|uncaught/i);
      child.alive();
    }, 60_000);

    it('fails a transaction whose backend dies between two statements, not the process', async () => {
      const sql = toSqlClient(database.client);
      const outcome = sql.transaction(async (tx) => {
        const [row] = await tx.query<{ pid: number }>({ text: 'SELECT pg_backend_pid() AS pid' });
        await sql.query({ text: 'SELECT pg_terminate_backend($1)', values: [row!.pid] });
        // Checked out and idle while its socket reports the end: an 'error' with no query.
        await new Promise((resolve) => setTimeout(resolve, 300));
        await tx.query({ text: 'SELECT 1' });
      });
      await expect(outcome).rejects.toThrow();
      // The pool goes on with healthy connections.
      expect(await sql.query({ text: 'SELECT 1 AS one' })).toEqual([{ one: 1 }]);
    });
  },
);
