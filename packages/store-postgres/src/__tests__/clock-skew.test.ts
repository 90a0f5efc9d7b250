import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { DurableRunEvent } from '@runlight/protocol';
import { type AgentRuntimeStore, createAgentRuntimeStore } from '@runlight/runtime';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPostgresDriver } from '../postgres-driver';
import { toSqlClient } from '../sql-client';
import {
  openServer,
  serverLabel,
  serverPoolConfig,
  serverUnavailable,
  type TestDatabase,
} from './test-databases';

const LEASE_MS = 1_000;
const SKEW_MS = 60_000;
const CHILD = fileURLToPath(new URL('./clock-skew-child.ts', import.meta.url));
const OFFSET = fileURLToPath(new URL('./clock-offset.ts', import.meta.url));
const words = (tokens: number) => Array.from({ length: tokens }, (_, i) => `w${i} `).join('');

interface Runner {
  owner: string;
  child: ChildProcess;
  lines: Record<string, unknown>[];
  start(runId: string, tokens: number): void;
  /** Resolves with the first line `match` accepts (already printed or to come). */
  line(match: (line: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
}

function startRunner(config: object, owner: string, offsetMs: number): Runner {
  const child = spawn(
    process.execPath,
    [
      '--unhandled-rejections=strict',
      '--import',
      'tsx',
      '--import',
      OFFSET,
      CHILD,
      JSON.stringify({ ...config, owner, leaseMs: LEASE_MS }),
    ],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
      env: { ...process.env, RUNLIGHT_CLOCK_OFFSET_MS: String(offsetMs) },
    },
  );
  const lines: Record<string, unknown>[] = [];
  const waiting = new Set<() => void>();
  createInterface({ input: child.stdout! }).on('line', (text) => {
    lines.push(JSON.parse(text));
    for (const wake of waiting) wake();
  });
  return {
    owner,
    child,
    lines,
    start: (runId, tokens) => child.stdin!.write(`${JSON.stringify({ runId, tokens })}\n`),
    line: (match) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const found = lines.find(match);
          if (!found) return;
          waiting.delete(check);
          resolve(found);
        };
        waiting.add(check);
        child.once('exit', (code, signal) =>
          reject(new Error(`${owner} exited (${signal ?? code}) before the line it waited for`)),
        );
        check();
      }),
  };
}

type StatusEvent = Extract<DurableRunEvent, { type: 'run-status' }>;
const statusChanges = (events: DurableRunEvent[], change: string) =>
  events.filter(
    (event): event is StatusEvent => event.type === 'run-status' && event.change === change,
  );

describe.runIf(serverUnavailable === null)(
  `leases on the database’s clock (${serverLabel})`,
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

    /** The database's clock, read by a statement. */
    async function databaseNow(): Promise<number> {
      const [row] = await toSqlClient(database.client).query<{ ms: number }>({
        text: 'SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS ms',
      });
      return row!.ms;
    }

    /** Every event's time lies between the two database readings (a reading is never late). */
    function expectInDatabaseTime(events: DurableRunEvent[], from: number, to: number) {
      for (const event of events) {
        const at = Date.parse(event.at);
        // Carried from a reading, a time is behind the database by at most a statement's trip.
        expect(at, `${event.type} @${event.revision}`).toBeGreaterThanOrEqual(from - 5_000);
        expect(at, `${event.type} @${event.revision}`).toBeLessThanOrEqual(to);
      }
    }

    it('two runners 60 s ahead and 60 s behind: no live run changes owner; the dead one’s runs are taken over within the lease', async () => {
      const schema = await database.freshSchema();
      const config = { pool: serverPoolConfig(), schema };
      const { user, host, port, database: name } = config.pool;
      const connectionString = `postgres://${user}@${host}:${port}/${name}`;
      const ahead = startRunner({ connectionString, schema }, 'ahead', SKEW_MS);
      const behind = startRunner({ connectionString, schema }, 'behind', -SKEW_MS);
      children.push(ahead.child, behind.child);
      const store: AgentRuntimeStore = createAgentRuntimeStore(
        createPostgresDriver({ client: database.client, schema }),
      );
      // The preload took: each process's wall clock is a minute off the database's.
      for (const runner of [ahead, behind]) {
        const { clockError } = await runner.line((line) => line.ready === runner.owner);
        const sign = runner === ahead ? 1 : -1;
        expect(Math.abs((clockError as number) - sign * SKEW_MS)).toBeLessThan(5_000);
      }

      // 1. Both alive: three runs each, every one longer than three leases (renewed meanwhile).
      const from = await databaseNow();
      const live = [ahead, behind].flatMap((runner) =>
        [0, 1, 2].map((i) => ({ runner, runId: `${runner.owner}-live-${i}` })),
      );
      for (const { runner, runId } of live) runner.start(runId, 60);
      for (const { runner, runId } of live) {
        expect(await runner.line((line) => line.runId === runId)).toMatchObject({
          runId,
          status: 'completed',
        });
      }
      const to = await databaseNow();
      for (const { runner, runId } of live) {
        const events = await store.readEvents(runId);
        // Acquired once, by the runner that started it: never taken, so the answer never restarted.
        expect(statusChanges(events, 'acquired'), runId).toHaveLength(1);
        expect(await store.getRun(runId)).toMatchObject({
          owner: runner.owner,
          status: 'completed',
          fencingToken: 1,
        });
        const snapshot = await store.getSnapshot(runId);
        const text = snapshot.assistant?.message.parts.map((part) =>
          part.type === 'text' ? part.text : '',
        );
        expect(text?.join(''), runId).toBe(words(60));
        expect(statusChanges(events, 'acquired')[0]).toMatchObject({ owner: runner.owner });
        expectInDatabaseTime(events, from, to);
      }

      // 2. The runner ahead dies mid-answer: the one behind takes its runs over within the lease.
      const doomed = [0, 1, 2].map((i) => `ahead-doomed-${i}`);
      for (const runId of doomed) ahead.start(runId, 200);
      await vi.waitFor(
        async () => {
          for (const runId of doomed) {
            expect((await store.getRun(runId)).lastOperation?.phase).toBe('first-output');
          }
        },
        { timeout: 30_000, interval: 50 },
      );
      const exited = new Promise((resolve) => ahead.child.once('exit', resolve));
      ahead.child.kill('SIGKILL');
      await exited;
      const killedAt = await databaseNow();
      // Its recovery loop finishes them (a lease and a poll later; on the runner's clock this
      // was a minute and a lease later).
      await vi.waitFor(
        async () => {
          for (const runId of doomed) {
            expect(await store.getRun(runId)).toMatchObject({
              status: 'completed',
              owner: 'behind',
            });
          }
        },
        { timeout: 30_000, interval: 100 },
      );
      for (const runId of doomed) {
        const events = await store.readEvents(runId);
        const acquired = statusChanges(events, 'acquired');
        expect(acquired.map((event) => event.owner)).toEqual(['ahead', 'behind']);
        const takeover = acquired[1]!;
        // The dead runner's last lease ran out at most one lease after it died, in the database's
        // time, and nobody took the run before it did.
        const last = events.filter((event) => event.revision < takeover.revision).at(-1)!;
        const expiry = Date.parse(last.leaseExpiresAt!);
        expect(expiry).toBeLessThanOrEqual(killedAt + LEASE_MS);
        expect(Date.parse(takeover.at)).toBeGreaterThanOrEqual(expiry);
      }
    });
  },
);
