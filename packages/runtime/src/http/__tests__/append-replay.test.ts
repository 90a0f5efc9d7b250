import type { DurableRunEvent } from '@runlight/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { assembleMessage } from '../../assembly/assistant-assembler';
import { createAgentRuntime } from '../../runner/agent-runtime';
import { createAgentRuntimeStore } from '../../store/agent-runtime-store';
import { createMemoryDriver } from '../../store/driver/memory-driver';
import { scriptedModel } from '../../testing/scripted-model';
import { createRunHandlers } from '../create-run-handlers';
import { createRunRouter } from '../routes/create-run-router';
import { toNodeListener } from '../routes/to-node-listener';
import { listen, SseReader } from './http-test-kit';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe('SSE replay of an append-only answer', () => {
  it('a client reconnecting mid-answer receives the appends it missed, not whole messages', async () => {
    const store = createAgentRuntimeStore(createMemoryDriver());
    const runtime = createAgentRuntime({
      store,
      owner: 'worker-a',
      checkpointEveryEvents: 4,
      onLog: () => {},
    });
    const words = Array.from({ length: 200 }, (_, i) => `word${i} `);
    await runtime.startRun({
      runId: 'run-1',
      model: scriptedModel([{ text: words }]),
      messages: [{ role: 'user', content: 'Go' }],
    }).done;
    const log = await store.readEvents('run-1');
    const appends = log.filter((event) => event.type === 'assistant-append');
    const cursor = appends[10]!.revision;

    const handlers = createRunHandlers({ store, runtime });
    const server = await listen(
      toNodeListener(createRunRouter({ handlers, basePath: '/api', authorize: 'public' })),
    );
    cleanups.push(server.close);
    const response = await fetch(`${server.origin}/api/runs/run-1/events`, {
      headers: { 'Last-Event-ID': String(cursor) },
    });
    const replay = (await new SseReader(response.body!).rest()).map(
      (message) => JSON.parse(message.data) as DurableRunEvent,
    );

    expect(replay.map((event) => event.revision)).toEqual(
      log.filter((event) => event.revision > cursor).map((event) => event.revision),
    );
    expect(replay.some((event) => event.type === 'assistant-checkpoint')).toBe(false);
    const final = (await store.getSnapshot('run-1')).assistant!.message;
    // Each replayed event is a batch of chunks, never a copy of the growing message.
    const largest = Math.max(...replay.map((event) => JSON.stringify(event).length));
    expect(largest).toBeLessThan(512);
    expect(JSON.stringify(final).length).toBeGreaterThan(1_500);

    // The message at the cursor plus the replayed appends is the final message.
    let message = { id: final.id, role: 'assistant' as const, parts: [] } as typeof final;
    for (const event of log) {
      if (event.revision > cursor) break;
      if (event.type === 'assistant-append') message = await assembleMessage(message, event.chunks);
    }
    for (const event of replay) {
      if (event.type === 'assistant-append') message = await assembleMessage(message, event.chunks);
    }
    expect(message).toEqual(final);
  });
});
