import { afterEach, describe, expect, it } from 'vitest';
import { createAgentRuntime } from '../../runner/agent-runtime';
import type { RuntimeLogEntry } from '../../runner/run-options';
import { createAgentRuntimeStore } from '../../store/agent-runtime-store';
import { createMemoryDriver } from '../../store/driver/memory-driver';
import { scriptedModel } from '../../testing/scripted-model';
import { withLatency } from '../../testing/with-latency';
import { createRunHandlers } from '../create-run-handlers';
import { createRunRouter } from '../routes/create-run-router';
import { toNodeListener } from '../routes/to-node-listener';
import { Follower, listen, SseReader } from './http-test-kit';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const TEXT = Array.from({ length: 60 }, (_, i) => `word${i} `).join('');

describe('the handlers over the real runtime', () => {
  it('serve a scripted answer to a watcher and to a client that drops three times: same text, no gap, no duplicate', async () => {
    const store = createAgentRuntimeStore(
      withLatency(createMemoryDriver(), { minMs: 0, maxMs: 2, seed: 7 }),
    );
    const logs: RuntimeLogEntry[] = [];
    const runtime = createAgentRuntime({
      store,
      owner: 'worker-a',
      checkpointEveryEvents: 4,
      onLog: (entry) => logs.push(entry),
    });
    const handlers = createRunHandlers({ store, runtime });
    const server = await listen(
      toNodeListener(createRunRouter({ handlers, basePath: '/api', authorize: 'public' })),
    );
    cleanups.push(server.close);
    const open = async (cursor?: string) => {
      const response = await fetch(`${server.origin}/api/runs/run-1/events`, {
        headers: cursor ? { 'Last-Event-ID': cursor } : {},
      });
      expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      return new SseReader(response.body!);
    };

    const created = new Promise<void>((resolve) => {
      const unsubscribe = runtime.subscribe('run-1', () => {
        unsubscribe();
        resolve();
      });
    });
    const firstOutput = new Promise<void>((resolve) => {
      const unsubscribe = runtime.subscribe('run-1', (event) => {
        if (event.type === 'run-operation' && event.operation.phase === 'first-output') {
          unsubscribe();
          resolve();
        }
      });
    });
    const done = runtime.startRun({
      runId: 'run-1',
      model: scriptedModel([{ text: TEXT, firstTokenMs: 80, tokenMs: 2 }]),
      messages: [{ role: 'user', content: 'Count.' }],
    }).done;

    await created;
    // Connected during the provider wait, never dropped.
    const watcher = new Follower(true);
    const watching = (await open()).rest();

    await firstOutput;
    const dropper = new Follower();
    for (let drop = 0; drop < 3; drop++) {
      const reader = await open(dropper.log.length === 0 ? undefined : dropper.cursor);
      for (let i = 0; i < 5; i++) dropper.apply((await reader.nextMessage())!);
      await reader.cancel();
    }
    const rest = (await open(dropper.cursor)).rest();

    const run = await done;
    expect(run.status).toBe('completed');
    expect(logs).toEqual([]);
    for (const message of await watching) watcher.apply(message);
    for (const message of await rest) dropper.apply(message);
    for (const follower of [watcher, dropper]) {
      expect(follower.terminal).toBe(true);
      expect(follower.revision).toBe(run.revision);
      expect(follower.text).toBe(TEXT);
    }
    expect(watcher.log.filter((entry) => entry.startsWith('d')).length).toBeGreaterThan(60);
  });
});
