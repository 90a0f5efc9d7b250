import type { RunOperation } from '@runlight/protocol';
import {
  createAgentRuntime,
  createAgentRuntimeStore,
  createMemoryDriver,
  createRunHandlers,
  createRunRouter,
  RunEventHub,
  type StartRunOptions,
  toNodeListener,
} from '@runlight/runtime';
import { publicRunOf } from '@runlight/runtime/test-kit';
import { scriptedModel, withLatency } from '@runlight/runtime/testing';
import { loopbackServers } from '@runlight/test-utils';
import { wrapLanguageModel } from 'ai';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRunlightClient } from '../create-runlight-client';
import type { RunState } from '../merge/run-state';
import { selectActivity } from '../select/select-activity';
import { selectMessage } from '../select/select-message';

/** Generous on a loaded machine: waits are for events, not for speed. */
const waitFor = <T>(check: () => T, options: { timeout?: number; interval?: number } = {}) =>
  vi.waitFor(check, { timeout: 30_000, interval: 5, ...options });

/**
 * End to end over real loopback HTTP: the real runtime with a scripted model, the real SSE
 * handlers on `node:http`, and the client on the global `fetch`.
 */
const servers = loopbackServers();
afterEach(servers.closeAll);

/**
 * The server: an in-memory store answering on later ticks, the runtime, the run handlers. The
 * first `drops` event connections are destroyed by the server after `dropAfterWrites` writes.
 */
async function serve(options: { drops?: number; dropAfterWrites?: number } = {}) {
  const store = createAgentRuntimeStore(
    withLatency(createMemoryDriver(), { minMs: 0, maxMs: 2, seed: 7 }),
  );
  const hub = new RunEventHub();
  const runtime = createAgentRuntime({
    store,
    events: hub,
    checkpointEveryEvents: 4,
    owner: 'worker-a',
  });
  const listener = toNodeListener(
    createRunRouter({
      handlers: createRunHandlers({ store, runtime, heartbeatMs: 200 }),
      basePath: '/api',
      authorize: 'public',
    }),
  );
  let eventConnections = 0;
  let dropped = 0;
  const { origin } = await servers.listen((request, response) => {
    if (request.url?.endsWith('/events') && eventConnections++ < (options.drops ?? 0)) {
      let writes = 0;
      const write = response.write.bind(response) as (chunk: unknown) => boolean;
      response.write = ((chunk: unknown) => {
        const result = write(chunk);
        if (++writes === (options.dropAfterWrites ?? 6)) {
          dropped++;
          // The server drops the connection mid-stream: no clean end, the socket just goes.
          setImmediate(() => response.destroy());
        }
        return result;
      }) as typeof response.write;
    }
    listener(request, response);
  });
  return {
    store,
    hub,
    runtime,
    baseUrl: `${origin}/api`,
    stats: () => ({ eventConnections, dropped }),
  };
}

/** A tool the scripted model calls; the run pauses for its approval (and stays `running`). */
const pay = {
  description: 'Pays an amount',
  inputSchema: {
    [Symbol.for('vercel.ai.schema')]: true,
    _type: undefined,
    jsonSchema: {
      type: 'object',
      properties: { amount: { type: 'number' } },
      required: ['amount'],
    },
    validate: (value: unknown) => ({ success: true, value }),
  },
  execute: async () => ({ paid: true }),
} as unknown as NonNullable<StartRunOptions['tools']>[string];

const words = Array.from({ length: 40 }, (_, index) => `word${index} `).join('');
const textOf = (state: RunState) =>
  (selectMessage(state)?.parts ?? [])
    .map((part) => (part.type === 'text' ? part.text : ''))
    .join('');

describe('end to end over loopback HTTP', () => {
  it('three server drops mid-stream: no duplicated or missing text, startedAt unchanged, ends live and in sync', async () => {
    const { store, hub, runtime, baseUrl, stats } = await serve({ drops: 3, dropAfterWrites: 6 });
    const runId = 'run-drops';
    const startedAts = new Map<string, string>();
    runtime.subscribe(runId, (event) => {
      if (event.type === 'run-operation' && event.operation.phase === 'started') {
        startedAts.set(event.operation.id, event.operation.startedAt);
      }
    });
    const handle = runtime.startRun({
      runId,
      model: scriptedModel([
        {
          firstTokenMs: 80,
          tokenMs: 6,
          text: words,
          toolCalls: [{ toolName: 'pay', input: { amount: 5 } }],
        },
      ]),
      messages: [{ role: 'user', content: 'Pay 5 after 40 words' }],
      tools: { pay },
      toolApproval: { pay: 'user-approval' },
    });
    await waitFor(() => store.getRun(runId), { timeout: 30_000, interval: 5 });

    const client = createRunlightClient({
      baseUrl,
      reconnect: { initialDelayMs: 5, maxDelayMs: 20 },
    });
    const runStore = client.run(runId);
    const seen: RunState[] = [];
    const unsubscribe = runStore.subscribe(() => seen.push(runStore.getState()));

    const paused = await handle.done;
    expect(paused.status).toBe('running');
    const final = await store.getSnapshot(runId);
    await waitFor(
      () => {
        const state = runStore.getState();
        expect(state.revision).toBe(final.revision);
        expect(state.connection).toBe('live');
      },
      { timeout: 30_000, interval: 10 },
    );

    expect(stats().dropped).toBe(3);
    expect(stats().eventConnections).toBeGreaterThanOrEqual(4);
    const state = runStore.getState();
    expect(state.phase).toBe('synced');
    expect(state.run).toEqual(publicRunOf(final.run));
    expect(state.assistant).toEqual(final.assistant);
    expect(textOf(state)).toBe(words);
    expect(selectActivity(state).kind).toBe('awaiting-approval');
    // Every state a subscriber saw: text never duplicated (a prefix of the answer), and the
    // operation's startedAt always the original one.
    for (const seenState of seen) {
      expect(words.startsWith(textOf(seenState))).toBe(true);
      const operation: RunOperation | null | undefined = seenState.run?.lastOperation;
      if (operation) expect(operation.startedAt).toBe(startedAts.get(operation.id));
    }
    expect(seen.some((seenState) => selectActivity(seenState).kind === 'streaming')).toBe(true);

    unsubscribe();
    await waitFor(() => expect(hub.listenerCount(runId)).toBe(1), { timeout: 30_000 });
    expect(runStore.getState().connection).toBe('idle');
  });

  it('a client that connects mid-wait shows waiting-for-model since the original startedAt', async () => {
    const { store, runtime, baseUrl } = await serve();
    const runId = 'run-wait';
    // The provider answers when the test says so: after the client connected mid-wait.
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => {
      answer = resolve;
    });
    const model = wrapLanguageModel({
      model: scriptedModel([{ text: 'Finally here.' }]),
      middleware: {
        specificationVersion: 'v4',
        wrapStream: async ({ doStream }) => {
          await answered;
          return doStream();
        },
      },
    });
    const handle = runtime.startRun({
      runId,
      model,
      messages: [{ role: 'user', content: 'Take your time' }],
    });
    const started = await waitFor(
      async () => {
        const operation = (await store.getRun(runId)).lastOperation;
        expect(operation?.phase).toBe('started');
        return operation!;
      },
      { timeout: 30_000, interval: 5 },
    );
    // Connect well after the wait began: connection time must not become the `since`.
    await new Promise((resolve) => setTimeout(resolve, 150));

    const client = createRunlightClient({ baseUrl });
    const runStore = client.run(runId);
    const unsubscribe = runStore.subscribe(() => {});
    await waitFor(() => expect(runStore.getState().connection).toBe('live'), { timeout: 30_000 });
    const activity = selectActivity(runStore.getState(), Date.now());
    expect(activity).toMatchObject({ kind: 'waiting-for-model', since: started.startedAt });
    expect(activity.elapsedMs).toBeGreaterThanOrEqual(100);
    expect(runStore.getState().clockOffsetMs).not.toBeNull();

    answer();
    await handle.done;
    await waitFor(() => expect(runStore.getState().connection).toBe('closed'), {
      timeout: 30_000,
    });
    expect(selectActivity(runStore.getState()).kind).toBe('completed');
    expect(textOf(runStore.getState())).toBe('Finally here.');
    unsubscribe();
  });
});
