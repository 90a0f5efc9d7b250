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
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRunlightClient } from '../create-runlight-client';
import { createMultiplexedRunlightClient } from '../multiplex/create-multiplexed-client';

const waitFor = <T>(check: () => T) => vi.waitFor(check, { timeout: 30_000, interval: 10 });

const servers = loopbackServers();
const stops: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
  await servers.closeAll();
});

/**
 * The real runtime and router, with a bearer-token policy re-asked every 30 ms; `revoke(run)`
 * takes the token's access to a run away while its stream is open.
 */
async function serve(runIds: string[]) {
  const store = createAgentRuntimeStore(createMemoryDriver());
  const hub = new RunEventHub();
  const runtime = createAgentRuntime({ store, events: hub });
  const granted = new Set(runIds);
  const route = createRunRouter({
    handlers: createRunHandlers({ store, runtime, heartbeatMs: 200 }),
    multiplex: createMultiplexHandlers({ store, runtime, heartbeatMs: 200 }),
    basePath: '/api',
    reauthorizeMs: 30,
    authorize: ({ request, runId }) =>
      request.headers.get('authorization') === 'Bearer t' && granted.has(runId),
  });
  const listener = toNodeListener(route);
  const eventRequests: string[] = [];
  const { origin } = await servers.listen((request, response) => {
    if (/\/events|\/run-events/.test(request.url ?? '')) eventRequests.push(request.url ?? '');
    listener(request, response);
  });
  for (const runId of runIds) {
    // A run that waits for its first token all test long: its stream stays open.
    const handle = runtime.startRun({
      runId,
      model: scriptedModel([{ firstTokenMs: 60_000, text: 'never' }]),
      messages: [{ role: 'user', content: 'Go' }],
    });
    await handle.created;
    stops.push(async () => {
      await runtime.cancelRun(runId);
      await handle.done;
    });
  }
  return {
    baseUrl: `${origin}/api`,
    eventRequests,
    revoke: (runId: string) => granted.delete(runId),
  };
}

describe('access revoked while the stream is open', () => {
  it('the run store shows `unauthorized` (a typed error, status 403) and stops reconnecting', async () => {
    const { baseUrl, revoke, eventRequests } = await serve(['run-1']);
    const client = createRunlightClient({
      baseUrl,
      headers: () => ({ authorization: 'Bearer t' }),
      reconnect: { initialDelayMs: 5, maxDelayMs: 60_000 },
    });
    const store = client.run('run-1');
    const errors: unknown[] = [];
    const unsubscribe = store.subscribe(() => errors.push(store.getState().error?.kind));
    await waitFor(() => expect(store.getState().connection).toBe('live'));
    revoke('run-1');
    await waitFor(() => expect(store.getState().connection).toBe('unauthorized'));
    expect(store.getState().error).toMatchObject({
      kind: 'unauthorized',
      status: 403,
      code: 'forbidden',
    });
    expect(store.getState().run?.status).toBe('running'); // the last good state stays
    // Straight from the typed end: no reconnect asked the server again, no unknown-event error.
    expect(eventRequests).toHaveLength(1);
    expect(errors).not.toContain('unknown-event');
    unsubscribe();
  });

  it('multiplexed: only the revoked run turns `unauthorized`; the other stays live', async () => {
    const { baseUrl, revoke } = await serve(['run-a', 'run-b']);
    const client = createMultiplexedRunlightClient({
      baseUrl,
      headers: () => ({ authorization: 'Bearer t' }),
      reconnect: { initialDelayMs: 5, maxDelayMs: 60_000 },
    });
    const a = client.run('run-a');
    const b = client.run('run-b');
    const unsubscribes = [a.subscribe(() => {}), b.subscribe(() => {})];
    await waitFor(() => {
      expect(a.getState().connection).toBe('live');
      expect(b.getState().connection).toBe('live');
    });
    revoke('run-b');
    await waitFor(() => expect(b.getState().connection).toBe('unauthorized'));
    expect(b.getState().error).toMatchObject({ kind: 'unauthorized', status: 403 });
    // The shared connection re-opens for run-a alone; it is live again, without an error.
    await waitFor(() => {
      expect(a.getState().connection).toBe('live');
      expect(client.multiplexer.runIds()).toEqual(['run-a']);
    });
    expect(a.getState().error).toBeNull();
    // b ended on the shared connection itself: it was not re-opened to learn it.
    expect(client.multiplexer.connectionsOpened).toBe(1);
    for (const unsubscribe of unsubscribes) unsubscribe();
  });
});
