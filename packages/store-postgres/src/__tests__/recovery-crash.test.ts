import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createRunRecovery } from '@runlight/runtime';
import { scriptedModel } from '@runlight/runtime/testing';
import { isStepCount } from 'ai';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
// The headless client the pages use, as an SSE client of the surviving instance. It is not a
// dependency of this package (nor needs to be): the test reaches it through the workspace.
import {
  createRunlightClient,
  selectActivity,
  selectMessage,
  watchLeaseExpiry,
} from '../../../client/src/index';
import { crashTools } from './crash-script';
import { startInstance } from './instance';
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
const ANSWER = 'Snow in Oslo, sun in Rome.';

describe.runIf(serverUnavailable === null)(`recovery after a SIGKILL on the ${serverLabel}`, () => {
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

  it('the surviving instance’s recovery loop finishes the run; its SSE client sees stalled, then the answer', async () => {
    const schema = await database.freshSchema();
    const b = await startInstance(database.client, schema, { owner: 'instance-b' });
    // The loop knows no run id: it finds whatever expired. The application's resolveRun
    // continues the conversation (here: a model that finishes the answer).
    const resolveRun = vi.fn(() => ({
      model: scriptedModel([{ text: ANSWER }]),
      messages,
      tools: crashTools,
      stopWhen: isStepCount(5),
    }));
    const recovery = createRunRecovery({
      store: b.store,
      runtime: b.runtime,
      resolveRun,
      intervalMs: 200,
    });
    const client = createRunlightClient({ baseUrl: b.origin });
    try {
      const runId = 'crash-recovered';
      await b.store.createRun({ runId });
      const store = client.run(runId);
      const seen: string[] = [];
      const record = () => {
        const kind = selectActivity(store.getState()).kind;
        if (seen.at(-1) !== kind) seen.push(kind);
      };
      const unsubscribe = store.subscribe(record);
      const stopWatching = watchLeaseExpiry(store, record);
      recovery.start();

      const config = { pool: serverPoolConfig(), schema, runId, leaseMs: LEASE_MS };
      const child = spawn(
        process.execPath,
        ['--unhandled-rejections=strict', '--import', 'tsx', CHILD, JSON.stringify(config)],
        {
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      children.push(child);
      const exited = new Promise((resolve) =>
        child.on('exit', (code, signal) => resolve(signal ?? code)),
      );
      // Killed while it streams its third step, after both tool results were checkpointed.
      await vi.waitFor(
        () =>
          expect(store.getState().run?.lastOperation).toMatchObject({
            step: 2,
            phase: 'first-output',
          }),
        { timeout: 30_000, interval: 20 },
      );
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');

      await vi.waitFor(() => expect(store.getState().run?.status).toBe('completed'), {
        timeout: 30_000,
        interval: 50,
      });
      stopWatching();
      unsubscribe();

      // Stalled once A's lease ran out, then B streamed and completed the run.
      expect(seen).toContain('stalled');
      const afterStall = seen.slice(seen.indexOf('stalled') + 1);
      expect(afterStall).toContain('streaming');
      expect(afterStall.at(-1)).toBe('completed');
      expect(resolveRun).toHaveBeenCalledTimes(1);
      const final = await b.store.getSnapshot(runId);
      expect(final.run).toMatchObject({
        status: 'completed',
        owner: 'instance-b',
        fencingToken: 2,
      });
      const text = (selectMessage(store.getState())?.parts ?? [])
        .map((part) => (part.type === 'text' ? part.text : ''))
        .join('');
      expect(text.endsWith(ANSWER)).toBe(true);
      expect(selectMessage(store.getState())).toEqual(final.assistant?.message);
    } finally {
      await recovery.stop();
      client.run('crash-recovered').disconnect();
      await b.close();
    }
  });
});
