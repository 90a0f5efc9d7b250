import {
  createAgentRuntime,
  createAgentRuntimeStore,
  createMemoryDriver,
  createMultiplexHandlers,
  createRunHandlers,
  createRunRouter,
  RunEventHub,
  toNodeListener,
} from '@runlight/runtime';
import { scriptedModel } from '@runlight/runtime/testing';
import { loopbackServers } from '@runlight/test-utils';
import { isStepCount, tool } from 'ai';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { createRunlightClient } from '../create-runlight-client';
import { createMultiplexedRunlightClient } from '../multiplex/create-multiplexed-client';

const KiB = 1024;
const servers = loopbackServers();
afterEach(servers.closeAll);

/**
 * A real runtime whose tool returns ≈ 600 KiB, the real handlers over loopback — with the
 * client's own `maxEventBytes` (256 KiB) below that, as a browser's would be below a 12 MB
 * tool result: the event is one message this client cannot take.
 */
async function serve(maxEventBytes: number) {
  const store = createAgentRuntimeStore(createMemoryDriver());
  const hub = new RunEventHub();
  const runtime = createAgentRuntime({ store, events: hub, owner: 'worker-a', onLog: () => {} });
  const handlers = createRunHandlers({ store, runtime, heartbeatMs: 200, maxEventBytes });
  const multiplex = createMultiplexHandlers({ store, runtime, heartbeatMs: 200, maxEventBytes });
  const listener = toNodeListener(
    createRunRouter({ handlers, multiplex, basePath: '/api', authorize: 'public' }),
  );
  const requests = { events: 0, refs: 0, snapshots: 0, cursors: [] as string[] };
  // The tool returns only once a client's event stream is open: the large event then comes after
  // the client's snapshot, on the stream, however slowly a loaded machine lets the client start.
  let streamOpened: () => void = () => {};
  const opened = new Promise<void>((resolve) => {
    streamOpened = resolve;
  });
  const { origin } = await servers.listen((request, response) => {
    const path = request.url?.split('?')[0] ?? '';
    if (/\/(events|run-events)$/.test(path)) streamOpened();
    if (/\/runs\/[^/]+\/events$/.test(path)) {
      requests.events++;
      requests.cursors.push(String(request.headers['last-event-id'] ?? ''));
    } else if (/\/events\/\d+$/.test(path)) requests.refs++;
    else if (/\/runs\/[^/]+$/.test(path)) requests.snapshots++;
    listener(request, response);
  });
  const big = 'b'.repeat(600 * KiB);
  const start = (runId: string) =>
    runtime.startRun({
      runId,
      model: scriptedModel([
        { firstTokenMs: 150, toolCalls: [{ toolName: 'dump', input: {} }] },
        { text: 'Read it all.' },
      ]),
      messages: [{ role: 'user', content: 'Dump it' }],
      tools: {
        dump: tool({
          inputSchema: z.object({}),
          execute: async () => {
            await opened;
            return { big };
          },
        }),
      },
      stopWhen: isStepCount(3),
    });
  return { store, baseUrl: `${origin}/api`, requests, start, big };
}

const waitFor = <T>(check: () => T) => vi.waitFor(check, { timeout: 30_000, interval: 10 });

describe('events larger than the client can take (issue 22 item 4)', () => {
  it('follows an event-ref: the client fetches the large event and reaches the end', async () => {
    const server = await serve(64 * KiB);
    const handle = server.start('run-big');
    await waitFor(() => server.store.getRun('run-big'));
    const client = createRunlightClient({
      baseUrl: server.baseUrl,
      reconnect: { initialDelayMs: 5, maxDelayMs: 20 },
      limits: { maxEventBytes: 256 * KiB },
    });
    const runStore = client.run('run-big');
    const unsubscribe = runStore.subscribe(() => {});
    const final = await handle.done;
    await waitFor(() => expect(runStore.getState().revision).toBe(final.revision));
    const state = runStore.getState();
    expect(state.run?.status).toBe('completed');
    expect(state.assistant).toEqual((await server.store.getSnapshot('run-big')).assistant);
    expect(JSON.stringify(state.assistant)).toContain(server.big);
    expect(server.requests.refs).toBeGreaterThanOrEqual(1);
    // One stream carried the run: no drop, no reconnect loop.
    expect(server.requests.events).toBe(1);
    unsubscribe();
  });

  it('follows an event-ref on the multiplexed connection too', async () => {
    const server = await serve(64 * KiB);
    const handle = server.start('run-many');
    await waitFor(() => server.store.getRun('run-many'));
    const client = createMultiplexedRunlightClient({
      baseUrl: server.baseUrl,
      reconnect: { initialDelayMs: 5, maxDelayMs: 20 },
      limits: { maxEventBytes: 256 * KiB },
    });
    const runStore = client.run('run-many');
    const unsubscribe = runStore.subscribe(() => {});
    const final = await handle.done;
    await waitFor(() => expect(runStore.getState().revision).toBe(final.revision));
    expect(JSON.stringify(runStore.getState().assistant)).toContain(server.big);
    expect(server.requests.refs).toBeGreaterThanOrEqual(1);
    unsubscribe();
  });

  it('a client dropped twice at the same cursor reloads the snapshot instead of looping', async () => {
    // A server that sends every event inline (as before maxEventBytes existed).
    const server = await serve(Number.MAX_SAFE_INTEGER);
    const handle = server.start('run-loop');
    await waitFor(() => server.store.getRun('run-loop'));
    const client = createRunlightClient({
      baseUrl: server.baseUrl,
      reconnect: { initialDelayMs: 5, maxDelayMs: 20 },
      limits: { maxEventBytes: 256 * KiB },
    });
    const runStore = client.run('run-loop');
    const unsubscribe = runStore.subscribe(() => {});
    const final = await handle.done;
    await waitFor(() => expect(runStore.getState().revision).toBe(final.revision));
    expect(runStore.getState().run?.status).toBe('completed');
    expect(JSON.stringify(runStore.getState().assistant)).toContain(server.big);
    // Resumed at the large event's cursor twice at most, then past it via the snapshot (a
    // terminal run's own end — `204` — is not this rule's concern).
    const before = server.requests.cursors.filter(
      (cursor) => cursor !== '' && Number(cursor.split(':')[0]) < final.revision,
    );
    const counts = new Map<string, number>();
    for (const cursor of before) counts.set(cursor, (counts.get(cursor) ?? 0) + 1);
    expect(Math.max(...counts.values())).toBeLessThanOrEqual(2);
    expect(server.requests.snapshots).toBeGreaterThanOrEqual(2);
    unsubscribe();
  });
});
