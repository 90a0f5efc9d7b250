/**
 * docs/production.md, run as written: its process files (`deployment.ts`, `runner.ts`,
 * `gateway.ts`) are extracted with the snippet extractor (`scripts/snippets.ts`), written out
 * unchanged and started as separate processes (`production-guide/guide-process.ts` defines the
 * names the guide leaves to the reader). The migration runs once, through the package's bin; a
 * run is started through the gateway; then a rolling restart — SIGTERM one runner mid-answer,
 * start its replacement, SIGTERM the other — and the run must complete with exactly the
 * scripted answer: no text lost, none repeated, never ended `ownership_lost`. Once on
 * PostgreSQL's LISTEN/NOTIFY, once on Redis (127.0.0.1:6379).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createRunlightClient,
  defaultRunStatusLabels,
  describeRunStatus,
  selectMessage,
  selectRunStatus,
  statusText,
} from '@runlight/client';
import { isTerminalStatus } from '@runlight/protocol';
import { createAgentRuntimeStore } from '@runlight/runtime';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readSnippets } from '../../../../scripts/snippets';
import {
  ownRedisUnavailable,
  startOwnRedis,
} from '../../../bus-redis/src/__tests__/redis-test-server';
import { createPostgresDriver } from '../postgres-driver';
import { GUIDE_ANSWER } from './production-guide/continuation-model';
import { serverLabel, serverPoolConfig, serverUnavailable } from './test-databases';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const PROCESS = fileURLToPath(new URL('./production-guide/guide-process.ts', import.meta.url));
const MIGRATE_BIN = fileURLToPath(new URL('../bin/migrate.ts', import.meta.url));
// Inside @runlight/bus-redis: the guide imports it and @runlight/store-postgres, and that package
// resolves both (store-postgres cannot depend on bus-redis, which depends on it).
const SCRATCH = fileURLToPath(
  new URL(`../../../bus-redis/.scratch/production-guide-${process.pid}/`, import.meta.url),
);
/**
 * The flags of the command the guide gives for its `.ts` files (`node --import tsx runner.ts`),
 * read from the page: the processes run with exactly those, plus the workspace's source
 * condition (the packages' TypeScript instead of their builds).
 */
async function guideNodeFlags(): Promise<string[]> {
  const page = await readFile(join(ROOT, 'docs/production.md'), 'utf8');
  const command = /^node ((?:\S+ )+?)runner\.ts\b/m.exec(page);
  if (!command) throw new Error('docs/production.md gives no `node … runner.ts` command');
  return command[1]!.trim().split(/\s+/);
}
const EXEC_ARGV = [...(await guideNodeFlags()), '--conditions=@runlight/source'];
const READER = { authorization: 'Bearer reader' };

/** Whether Redis answers at 127.0.0.1:6379. */
const redisUp = await new Promise<boolean>((resolve) => {
  const socket = connect(6379, '127.0.0.1');
  socket.once('connect', () => {
    socket.destroy();
    resolve(true);
  });
  socket.once('error', () => resolve(false));
});

interface GuideProcess {
  child: ChildProcess;
  origin: string;
  output: () => string;
}

/** Starts one guide file as its own process; resolves with the origin it prints. */
async function startProcess(file: string, env: Record<string, string>): Promise<GuideProcess> {
  const child = fork(PROCESS, [join(SCRATCH, 'docs-production', file)], {
    execArgv: EXEC_ARGV,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  let output = '';
  child.stderr?.on('data', (chunk) => (output += chunk));
  const origin = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk) => {
      output += chunk;
      const found = /on (http:\/\/[\d.:]+)/.exec(output);
      if (found) resolve(found[1]!);
    });
    child.once('exit', (code) => reject(new Error(`${file} exited (${code}):\n${output}`)));
  });
  return { child, origin, output: () => output };
}

/** SIGTERM, as an orchestrator sends it; resolves with the exit code. */
async function terminate(process: GuideProcess): Promise<number | null> {
  const { child } = process;
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const [code] = (await exited) as [number | null];
  return code;
}

async function waitReady(process: GuideProcess): Promise<void> {
  await vi.waitFor(
    async () => {
      const response = await fetch(`${process.origin}/ready`);
      expect(await response.json()).toEqual({ ready: true });
      expect(response.status).toBe(200);
    },
    { timeout: 20_000, interval: 100 },
  );
}

const runMigrateBin = (env: Record<string, string>) =>
  new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = fork(MIGRATE_BIN, [], {
      execArgv: EXEC_ARGV,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    let output = '';
    child.stdout?.on('data', (chunk) => (output += chunk));
    child.stderr?.on('data', (chunk) => (output += chunk));
    child.once('exit', (code) => resolve({ code, output }));
  });

/**
 * A browser's view: the client follows the run through the gateway, across every hand-off, until
 * the server ends the stream; the status and assistant text it assembled, its text parts, and
 * every status `RunStatus` showed on the way (in order, each once).
 */
function follow(
  baseUrl: string,
  runId: string,
): Promise<{ status: string; text: string; textParts: number; said: string[] }> {
  const run = createRunlightClient({ baseUrl, headers: READER }).run(runId);
  const said: string[] = [];
  return new Promise((resolve, reject) => {
    const unsubscribe = run.subscribe(() => {
      const state = run.getState();
      const words = statusText(
        describeRunStatus(selectRunStatus(state), defaultRunStatusLabels, { recovers: true }),
      );
      if (said.at(-1) !== words) said.push(words);
      if (state.connection !== 'closed') return;
      unsubscribe();
      if (state.run === null || !isTerminalStatus(state.run.status)) {
        reject(new Error(state.error?.message ?? 'the stream closed before the run ended'));
        return;
      }
      const parts = selectMessage(state)?.parts ?? [];
      const text = parts.map((part) => (part.type === 'text' ? part.text : '')).join('');
      const textParts = parts.filter((part) => part.type === 'text').length;
      resolve({ status: state.run.status, text, textParts, said });
    });
  });
}

const textOf = (snapshot: {
  assistant?: { message: { parts: { type: string; text?: string }[] } } | null;
}) =>
  (snapshot.assistant?.message.parts ?? [])
    .map((part) => (part.type === 'text' ? (part.text ?? '') : ''))
    .join('');

describe.runIf(serverUnavailable === null)(
  `the production guide, run as written (${serverLabel})`,
  () => {
    let admin: pg.Pool;
    const schemas: string[] = [];
    const started: GuideProcess[] = [];

    beforeAll(async () => {
      admin = new pg.Pool({ ...serverPoolConfig(), max: 2 });
      admin.on('error', () => {});
      // The guide's process files, exactly as the page shows them.
      const guide = (await readSnippets(ROOT)).filter((snippet) =>
        snippet.origin.startsWith('docs/production.md:'),
      );
      const files = ['deployment.ts', 'runner.ts', 'gateway.ts'];
      for (const name of files) {
        const snippet = guide.find((candidate) => candidate.file === join('docs-production', name));
        if (!snippet) throw new Error(`docs/production.md shows no \`// ${name}\` block`);
        await mkdir(dirname(join(SCRATCH, snippet.file)), { recursive: true });
        await writeFile(join(SCRATCH, snippet.file), snippet.code);
      }
    });
    afterAll(async () => {
      await Promise.all(started.map((process) => terminate(process).catch(() => null)));
      for (const schema of schemas) await admin?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin?.end();
      await rm(SCRATCH, { recursive: true, force: true });
    });

    const buses = [
      { name: 'LISTEN/NOTIFY', redis: false },
      { name: 'Redis', redis: true },
    ] as const;

    for (const bus of buses) {
      it.runIf(!bus.redis || redisUp)(
        `on ${bus.name}: a rolling restart of both runners mid-answer completes the run with its whole answer`,
        async () => {
          const schema = `rl_guide_${process.pid}_${randomBytes(3).toString('hex')}`;
          schemas.push(schema);
          const config = serverPoolConfig();
          const env: Record<string, string> = {
            DATABASE_URL: `postgres://${config.user}@${config.host}:${config.port}/${config.database}`,
            RUNLIGHT_SCHEMA: schema,
            PORT: '0',
            REDIS_URL: bus.redis ? 'redis://127.0.0.1:6379' : '',
          };
          // Once per deploy, before the processes (which pass `migrate: false`): the bin.
          const migrated = await runMigrateBin(env);
          expect(migrated, migrated.output).toMatchObject({ code: 0 });

          const launch = async (file: string, extra: Record<string, string> = {}) => {
            const guideProcess = await startProcess(file, { ...env, ...extra });
            started.push(guideProcess);
            await waitReady(guideProcess);
            return guideProcess;
          };
          const [runnerA, runnerB] = await Promise.all([launch('runner.ts'), launch('runner.ts')]);
          const gateway = await launch('gateway.ts', { RUNLIGHT_RUNNERS_URL: runnerA!.origin });
          expect(await (await fetch(`${gateway.origin}/health`)).json()).toEqual({ status: 'ok' });

          const start = (headers: Record<string, string>) =>
            fetch(`${gateway.origin}/api/runs`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', ...headers },
              body: JSON.stringify({
                messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Go' }] }],
              }),
            });
          // The guide's policy: nobody signed in starts nothing.
          expect((await start({})).status).toBe(401);
          const response = await start(READER);
          expect(response.status).toBe(201);
          const { runId } = (await response.json()) as { runId: string };
          const watched = follow(`${gateway.origin}/api`, runId);
          watched.catch(() => {}); // awaited below
          const snapshot = async () => {
            const answer = await fetch(`${gateway.origin}/api/runs/${runId}`, { headers: READER });
            expect(answer.status).toBe(200);
            const body = (await answer.json()) as Parameters<typeof textOf>[0] & {
              run: { status: string; failure: { code: string } | null };
            };
            return { status: body.run.status, failure: body.run.failure, text: textOf(body) };
          };
          const textGrowsPast = async (length: number) => {
            await vi.waitFor(
              async () => {
                const now = await snapshot();
                expect(now.status).toBe('running');
                expect(now.text.length).toBeGreaterThan(length);
              },
              { timeout: 30_000, interval: 100 },
            );
            return (await snapshot()).text.length;
          };

          // Runner A streams; SIGTERM it mid-answer: it hands the run over and exits 0.
          const beforeA = await textGrowsPast(100);
          expect(await terminate(runnerA!)).toBe(0);
          // Its replacement starts; runner B has taken the run over and goes on streaming.
          const replacement = await launch('runner.ts');
          const duringB = await textGrowsPast(beforeA + 50);
          expect((await snapshot()).text.length).toBeLessThan(GUIDE_ANSWER.length);
          // Then the other runner: the replacement takes the run over and finishes it.
          expect(await terminate(runnerB!)).toBe(0);
          await vi.waitFor(async () => expect((await snapshot()).status).not.toBe('running'), {
            timeout: 60_000,
            interval: 200,
          });
          const final = await snapshot();
          expect(final).toMatchObject({ status: 'completed', failure: null });
          expect(final.text.length).toBeGreaterThan(duringB);
          expect(final.text).toBe(GUIDE_ANSWER);
          // …and a browser that watched it all through the gateway saw the same: one answer in
          // one text part, each deploy read as a planned hand-off — never as a stall or a crash.
          const seen = await watched;
          expect(seen).toMatchObject({ status: 'completed', text: GUIDE_ANSWER, textParts: 1 });
          expect(seen.said).toContain('Handing over to another worker');
          expect(seen.said.at(-1)).toBe('Completed');
          for (const words of seen.said) {
            expect(words).not.toMatch(/stopped responding|took over/);
          }

          // Two hand-offs, each followed by another runner's takeover; the last one finished it.
          const store = createAgentRuntimeStore(createPostgresDriver({ client: admin, schema }));
          const events = await store.readEvents(runId);
          const changes = events.flatMap((event) =>
            event.type === 'run-status' ? [event.change] : [],
          );
          expect(changes.filter((change) => change === 'lease-handed-off')).toHaveLength(2);
          const owners = new Set(
            events.flatMap((event) =>
              event.type === 'run-status' && event.change === 'acquired' ? [event.owner] : [],
            ),
          );
          expect(owners.size).toBe(3);
          // Each acquisition after a hand-off names who handed over to it (the log rebuilds it).
          const received = events.flatMap((event) =>
            event.type === 'run-status' && event.change === 'acquired' && event.handOff
              ? [event.handOff]
              : [],
          );
          expect(received).toHaveLength(2);
          for (const handOff of received) expect(handOff.to).toBeDefined();
          expect(received[0]!.to).toBe(received[1]!.from);
          await Promise.all([terminate(replacement), terminate(gateway)]);
        },
        150_000,
      );
    }

    it.runIf(ownRedisUnavailable === null)(
      'on Redis: an outage reaches the deployment’s onError (the process says so)',
      async () => {
        const schema = `rl_guide_${process.pid}_${randomBytes(3).toString('hex')}`;
        schemas.push(schema);
        const config = serverPoolConfig();
        const redis = await startOwnRedis();
        try {
          const env: Record<string, string> = {
            DATABASE_URL: `postgres://${config.user}@${config.host}:${config.port}/${config.database}`,
            RUNLIGHT_SCHEMA: schema,
            PORT: '0',
            REDIS_URL: redis.url,
          };
          const migrated = await runMigrateBin(env);
          expect(migrated, migrated.output).toMatchObject({ code: 0 });
          const runner = await startProcess('runner.ts', env);
          started.push(runner);
          await waitReady(runner);
          expect(runner.output()).not.toContain('RedisBusOutageError');
          await redis.stop();
          await vi.waitFor(
            () => expect(runner.output()).toMatch(/\[runlight\] store or bus RedisBusOutageError/),
            { timeout: 60_000, interval: 200 },
          );
          await terminate(runner);
        } finally {
          await redis.stop();
        }
      },
      90_000,
    );
  },
);
