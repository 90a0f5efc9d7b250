import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { AgentRun, RunEvent } from '@runlight/protocol';
import {
  type AgentRuntimeStore,
  createAgentRuntime,
  createAgentRuntimeStore,
} from '@runlight/runtime';
import { scriptedModel } from '@runlight/runtime/testing';
import { isStepCount } from 'ai';
import type pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPostgresDriver } from '../postgres-driver';
import { crashTools } from './crash-script';
import {
  openServer,
  serverLabel,
  serverPoolConfig,
  serverUnavailable,
  type TestDatabase,
} from './test-databases';

const LEASE_MS = 1_500;
const CHILD = fileURLToPath(new URL('./crash-child.ts', import.meta.url));
const messages = [{ role: 'user' as const, content: 'Weather in Oslo and Rome?' }];

/** Instance A in a child process, executing `runId`; resolves once it streams step 2. */
async function startInstanceA(store: AgentRuntimeStore, schema: string, runId: string) {
  const config = { pool: serverPoolConfig(), schema, runId, leaseMs: LEASE_MS };
  const child = spawn(
    process.execPath,
    ['--unhandled-rejections=strict', '--import', 'tsx', CHILD, JSON.stringify(config)],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let stdout = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) =>
    child.on('exit', (code, signal) => resolve(signal ?? code)),
  );
  // Both tool results are checkpointed once step 2's request has produced output.
  await vi.waitFor(
    async () => {
      const run = await store.getRun(runId);
      expect(run.lastOperation).toMatchObject({ step: 2, phase: 'first-output' });
    },
    { timeout: 30_000, interval: 50 },
  );
  return { child, exited, stdout: () => stdout };
}

const toolResultsOf = (snapshot: Awaited<ReturnType<AgentRuntimeStore['getSnapshot']>>) =>
  snapshot.assistant!.message.parts.filter(
    (part) => part.type === 'tool-weather' && 'state' in part && part.state === 'output-available',
  );

/** Instance B: waits out A's lease, resumes the run with its own model and finishes it. */
async function takeOver(store: AgentRuntimeStore, runId: string) {
  const runtime = createAgentRuntime({ store, owner: 'instance-b', leaseMs: 30_000 });
  const published: RunEvent[] = [];
  runtime.subscribe(runId, (event) => {
    if (event.type !== 'run-delta') published.push(event);
  });
  const final = await runtime.resumeRun({
    runId,
    approvals: [],
    model: scriptedModel([{ text: 'Snow in Oslo, sun in Rome.' }]),
    messages,
    tools: crashTools,
    stopWhen: isStepCount(5),
  }).done;
  return { final, published };
}

/** A process of its own needs a server: PGlite lives inside one process. */
describe.runIf(serverUnavailable === null)(`crash and takeover on the ${serverLabel}`, () => {
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

  async function setUp(runId: string) {
    const schema = await database.freshSchema();
    const client = database.client as pg.Pool;
    const driver = createPostgresDriver({ client, schema });
    const store = createAgentRuntimeStore(driver);
    await store.createRun({ runId });
    const a = await startInstanceA(store, schema, runId);
    children.push(a.child);
    const waitOutLease = async () => {
      const { leaseExpiresAt } = await store.getRun(runId);
      await vi.waitFor(() => expect(Date.now()).toBeGreaterThan(Date.parse(leaseExpiresAt!)), {
        timeout: LEASE_MS * 3,
        interval: 50,
      });
    };
    return { store, a, waitOutLease };
  }

  it('a second instance acquires after the killed owner’s lease expires and finishes the run', async () => {
    const { store, a, waitOutLease } = await setUp('crash-kill');
    a.child.kill('SIGKILL');
    expect(await a.exited).toBe('SIGKILL');
    const atDeath = await store.getSnapshot('crash-kill');
    expect(toolResultsOf(atDeath)).toHaveLength(2);

    await waitOutLease();
    const { final, published } = await takeOver(store, 'crash-kill');

    expect(final).toMatchObject({ status: 'completed', owner: 'instance-b', fencingToken: 2 });
    // Every tool result A checkpointed is still there, exactly as A wrote it.
    const snapshot = await store.getSnapshot('crash-kill');
    for (const result of toolResultsOf(atDeath)) {
      expect(snapshot.assistant!.message.parts).toContainEqual(result);
    }
    // From B's acquisition on, the event log is exactly what B published: B first ends the
    // request A left in flight, then runs its own.
    const log = await store.readEvents('crash-kill');
    expect(log.map((event) => event.revision)).toEqual(log.map((_, index) => index + 1));
    expect(log.slice(atDeath.revision)).toEqual(published);
    expect(published[0]).toMatchObject({ type: 'run-status', change: 'acquired' });
    expect(published[1]).toMatchObject({
      type: 'run-operation',
      operation: { id: atDeath.run.lastOperation!.id, phase: 'failed' },
    });
  });

  it('an owner paused past its lease wakes after the takeover and none of its writes land', async () => {
    const { store, a, waitOutLease } = await setUp('crash-pause');
    a.child.kill('SIGSTOP'); // a GC pause or a partition, as long as the lease and more
    await waitOutLease();
    const { final } = await takeOver(store, 'crash-pause');
    const finished = await store.getSnapshot('crash-pause');
    const log = await store.readEvents('crash-pause');

    a.child.kill('SIGCONT');
    expect(await a.exited).toBe(0);
    // A tried to write, was fenced, and reports the run as the new owner left it.
    const reported = JSON.parse(a.stdout()) as { run: AgentRun; logs: string[] };
    expect(reported.logs).toContainEqual(expect.stringMatching(/^warn: Ownership lost/));
    expect(reported.run).toMatchObject({ owner: 'instance-b', status: 'completed' });
    expect(await store.getSnapshot('crash-pause')).toEqual(finished);
    expect(await store.readEvents('crash-pause')).toEqual(log);
    expect(final).toEqual(finished.run);
  });
});
