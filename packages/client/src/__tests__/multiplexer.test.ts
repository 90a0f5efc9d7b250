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
import { publicRunOf } from '@runlight/runtime/test-kit';
import { scriptedModel } from '@runlight/runtime/testing';
import { loopbackServers } from '@runlight/test-utils';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RunState } from '../merge/run-state';
import { createMultiplexedRunlightClient } from '../multiplex/create-multiplexed-client';
import { selectActivity } from '../select/select-activity';
import { selectMessage } from '../select/select-message';

const waitFor = <T>(check: () => T, timeout = 15_000) =>
  vi.waitFor(check, { timeout, interval: 10 });

const servers = loopbackServers();
afterEach(servers.closeAll);

const textOf = (state: RunState) =>
  (selectMessage(state)?.parts ?? [])
    .map((part) => (part.type === 'text' ? part.text : ''))
    .join('');

/** The runtime with both the single-run and the multiplex routes; counts open connections. */
async function serve(
  options: { dropMultiplexAfterWrites?: number; authorize?: (request: Request) => boolean } = {},
) {
  const store = createAgentRuntimeStore(createMemoryDriver());
  const hub = new RunEventHub();
  const runtime = createAgentRuntime({ store, events: hub, checkpointEveryEvents: 4 });
  const listener = toNodeListener(
    createRunRouter({
      handlers: createRunHandlers({ store, runtime, heartbeatMs: 200 }),
      multiplex: createMultiplexHandlers({
        store,
        runtime,
        heartbeatMs: 200,
      }),
      basePath: '/api',
      authorize: options.authorize ? ({ request }) => options.authorize!(request) : 'public',
    }),
  );
  const open = { multiplexed: 0, single: 0, snapshotBatches: 0, singleSnapshots: 0 };
  let multiplexedOpened = 0;
  const urls: string[] = [];
  const { origin } = await servers.listen((request, response) => {
    const url = request.url ?? '';
    const kind = url.startsWith('/api/run-events')
      ? 'multiplexed'
      : /\/events(\?|$)/.test(url)
        ? 'single'
        : null;
    if (url.startsWith('/api/runs?')) open.snapshotBatches++;
    else if (/^\/api\/runs\/[^/]+$/.test(url)) open.singleSnapshots++;
    if (kind) {
      urls.push(url);
      open[kind]++;
      response.on('close', () => open[kind]--);
      if (kind === 'multiplexed' && multiplexedOpened++ === 0 && options.dropMultiplexAfterWrites) {
        let writes = 0;
        const write = response.write.bind(response) as (chunk: unknown) => boolean;
        response.write = ((chunk: unknown) => {
          const result = write(chunk);
          if (++writes === options.dropMultiplexAfterWrites) setImmediate(() => response.destroy());
          return result;
        }) as typeof response.write;
      }
    }
    listener(request, response);
  });
  return { store, hub, runtime, open, urls, baseUrl: `${origin}/api` };
}

const answer = (index: number) =>
  Array.from({ length: 12 }, (_, word) => `r${index}w${word} `).join('');

describe('many runs over one multiplexed connection (loopback HTTP, the real runtime)', () => {
  it('20 live runs: one event-stream connection, one batched snapshot load, every run ends with its exact text', async () => {
    const { store, runtime, open, baseUrl } = await serve();
    const ids = Array.from({ length: 20 }, (_, index) => `many-${index}`);
    const handles = ids.map((runId, index) =>
      runtime.startRun({
        runId,
        model: scriptedModel([{ firstTokenMs: 2_000, tokenMs: 10, text: answer(index) }]),
        messages: [{ role: 'user', content: 'Go' }],
      }),
    );
    await waitFor(async () => {
      for (const id of ids) await store.getRun(id);
    });
    const client = createMultiplexedRunlightClient({
      baseUrl,
      reconnect: { initialDelayMs: 5, maxDelayMs: 20 },
    });
    const seen = new Map<string, string[]>();
    const unsubscribes = ids.map((id) => {
      const runStore = client.run(id);
      return runStore.subscribe(() => {
        const list = seen.get(id) ?? [];
        list.push(textOf(runStore.getState()));
        seen.set(id, list);
      });
    });
    await waitFor(() =>
      expect(ids.every((id) => client.run(id).getState().connection === 'live')).toBe(true),
    );
    expect(open.multiplexed).toBe(1);
    expect(open.single).toBe(0);
    expect(open.snapshotBatches).toBe(1);
    expect(open.singleSnapshots).toBe(0);
    expect(ids.some((id) => selectActivity(client.run(id).getState()).kind !== 'completed')).toBe(
      true,
    );

    await Promise.all(handles.map((handle) => handle.done));
    await waitFor(() =>
      expect(ids.every((id) => client.run(id).getState().connection === 'closed')).toBe(true),
    );
    for (const [index, id] of ids.entries()) {
      const state = client.run(id).getState();
      const final = await store.getSnapshot(id);
      expect(state.run).toEqual(publicRunOf(final.run));
      expect(textOf(state)).toBe(answer(index));
      for (const text of seen.get(id) ?? []) expect(answer(index).startsWith(text)).toBe(true);
    }
    for (const unsubscribe of unsubscribes) unsubscribe();
    await waitFor(() => expect(open.multiplexed).toBe(0));
    expect(client.multiplexer.connectionsOpened).toBeLessThanOrEqual(2);
  });

  it('a store that loses its last subscriber leaves the connection; the rest keep their cursors (no duplicate text)', async () => {
    const { runtime, hub, urls, baseUrl, store } = await serve();
    const ids = ['stay-a', 'stay-b', 'leave-c'];
    const handles = ids.map((runId, index) =>
      runtime.startRun({
        runId,
        model: scriptedModel([{ firstTokenMs: 50, tokenMs: 25, text: answer(index) }]),
        messages: [{ role: 'user', content: 'Go' }],
      }),
    );
    await waitFor(async () => {
      for (const id of ids) await store.getRun(id);
    });
    const client = createMultiplexedRunlightClient({ baseUrl });
    const seen = new Map<string, string[]>();
    const unsubscribe = new Map(
      ids.map((id) => {
        const runStore = client.run(id);
        return [
          id,
          runStore.subscribe(() =>
            seen.set(id, [...(seen.get(id) ?? []), textOf(runStore.getState())]),
          ),
        ];
      }),
    );
    await waitFor(() => expect(textOf(client.run('stay-a').getState()).length).toBeGreaterThan(10));
    unsubscribe.get('leave-c')!();
    await waitFor(() => expect(client.multiplexer.runIds().sort()).toEqual(['stay-a', 'stay-b']));
    await waitFor(() => expect(hub.listenerCount('leave-c')).toBe(1)); // only the runtime's own
    await waitFor(() => expect(urls.at(-1)).not.toContain('leave-c'));
    expect(urls.at(-1)).toMatch(/stay-a%40[1-9]/); // re-opened from the run's cursor, not 0

    await Promise.all(handles.map((handle) => handle.done));
    for (const [index, id] of ['stay-a', 'stay-b'].entries()) {
      await waitFor(() => expect(textOf(client.run(id).getState())).toBe(answer(index)));
      for (const text of seen.get(id) ?? []) expect(answer(index).startsWith(text)).toBe(true);
    }
    unsubscribe.get('stay-a')!();
    unsubscribe.get('stay-b')!();
  });

  it('the shared connection drops mid-answer: every run resumes from its own cursor, nothing duplicated or missing', async () => {
    const { runtime, open, baseUrl, store } = await serve({ dropMultiplexAfterWrites: 25 });
    const ids = Array.from({ length: 5 }, (_, index) => `drop-${index}`);
    const handles = ids.map((runId, index) =>
      runtime.startRun({
        runId,
        model: scriptedModel([{ firstTokenMs: 30, tokenMs: 8, text: answer(index) }]),
        messages: [{ role: 'user', content: 'Go' }],
      }),
    );
    await waitFor(async () => {
      for (const id of ids) await store.getRun(id);
    });
    const client = createMultiplexedRunlightClient({
      baseUrl,
      reconnect: { initialDelayMs: 5, maxDelayMs: 20 },
    });
    const seen = new Map<string, string[]>();
    const unsubscribes = ids.map((id) => {
      const runStore = client.run(id);
      return runStore.subscribe(() =>
        seen.set(id, [...(seen.get(id) ?? []), textOf(runStore.getState())]),
      );
    });
    await Promise.all(handles.map((handle) => handle.done));
    await waitFor(() =>
      expect(ids.every((id) => client.run(id).getState().connection === 'closed')).toBe(true),
    );
    expect(client.multiplexer.connectionsOpened).toBeGreaterThanOrEqual(2);
    for (const [index, id] of ids.entries()) {
      expect(textOf(client.run(id).getState())).toBe(answer(index));
      for (const text of seen.get(id) ?? []) expect(answer(index).startsWith(text)).toBe(true);
    }
    // The answers streamed (partial texts were shown), so the drop came mid-answer.
    expect(
      ids.some((id, index) =>
        (seen.get(id) ?? []).some((text) => text.length > 0 && text.length < answer(index).length),
      ),
    ).toBe(true);
    for (const unsubscribe of unsubscribes) unsubscribe();
    await waitFor(() => expect(open.multiplexed).toBe(0));
  });

  it('an unknown run is refused for itself only (closed, run-not-found); the others stream', async () => {
    const { runtime, baseUrl, store } = await serve();
    const handle = runtime.startRun({
      runId: 'known',
      model: scriptedModel([{ firstTokenMs: 30, tokenMs: 5, text: answer(1) }]),
      messages: [{ role: 'user', content: 'Go' }],
    });
    await waitFor(() => store.getRun('known'));
    // A short just-created window: the unknown run is given up on quickly.
    const client = createMultiplexedRunlightClient({ baseUrl, notFoundRetryMs: 300 });
    const offA = client.run('known').subscribe(() => {});
    const offB = client.run('nobody').subscribe(() => {});
    await handle.done;
    await waitFor(() => expect(client.run('known').getState().connection).toBe('closed'));
    await waitFor(() => expect(client.run('nobody').getState().connection).toBe('closed'));
    expect(client.run('nobody').getState().error?.kind).toBe('run-not-found');
    expect(textOf(client.run('known').getState())).toBe(answer(1));
    offA();
    offB();
  });

  it('the shared connection and the batched snapshots carry the client headers (authorize sees them); without them each run is refused', async () => {
    const { runtime, baseUrl, store } = await serve({
      authorize: (request) => request.headers.get('authorization') === 'Bearer good',
    });
    const handle = runtime.startRun({
      runId: 'guarded',
      model: scriptedModel([{ firstTokenMs: 30, tokenMs: 5, text: answer(2) }]),
      messages: [{ role: 'user', content: 'Go' }],
    });
    await waitFor(() => store.getRun('guarded'));
    const allowed = createMultiplexedRunlightClient({
      baseUrl,
      headers: async () => ({ authorization: 'Bearer good' }),
    });
    const refused = createMultiplexedRunlightClient({
      baseUrl,
      headers: { authorization: 'Bearer bad' },
    });
    const offA = allowed.run('guarded').subscribe(() => {});
    const offB = refused.run('guarded').subscribe(() => {});
    await handle.done;
    await waitFor(() => expect(allowed.run('guarded').getState().connection).toBe('closed'));
    expect(textOf(allowed.run('guarded').getState())).toBe(answer(2));
    await waitFor(() => expect(refused.run('guarded').getState().error?.status).toBe(403));
    expect(refused.run('guarded').getState().run).toBeNull();
    offA();
    offB();
  });
});
