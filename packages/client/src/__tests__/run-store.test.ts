import {
  at,
  checkpoint,
  modelRequestOperation,
  operationEvent,
  snapshot,
  statusEvent,
  textDelta,
  textMessage,
} from '@runlight/test-utils';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRunlightClient, type RunlightClientOptions } from '../create-runlight-client';
import { RunlightClientError } from '../errors/runlight-client-error';
import type { RunState } from '../merge/run-state';
import { selectActivity } from '../select/select-activity';
import { selectMessage } from '../select/select-message';
import { FakeServer, fakeClient, live, sse, startedRun, waitFor } from './fake-server';

const base = startedRun;

function setup(options: Partial<RunlightClientOptions> = {}) {
  const server = new FakeServer(base());
  // A trailing slash on the base URL, as some apps configure it.
  const client = fakeClient(server, { baseUrl: 'http://runlight.test/api/', ...options });
  const store = client.run('run-1');
  const seen: RunState[] = [];
  const unsubscribe = store.subscribe(() => seen.push(store.getState()));
  return { server, client, store, seen, unsubscribe };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('RunStore', () => {
  it('loads the snapshot, then streams from the cursor of the merged state', async () => {
    const { server, store, unsubscribe } = setup();
    await live(store);
    expect(server.requests).toEqual(['/api/runs/run-1', '/api/runs/run-1/events']);
    expect(server.last.lastEventId).toBe('5');
    expect(selectActivity(store.getState())).toMatchObject({
      kind: 'waiting-for-model',
      since: at(-90),
    });
    unsubscribe();
  });

  it('notifies once per burst and not at all for a duplicate', async () => {
    const { server, store, seen, unsubscribe } = setup();
    await live(store);
    const before = seen.length;
    server.last.send(
      sse(operationEvent(6, modelRequestOperation('first-output'))) +
        sse(textDelta(4, 1, 'lo')) +
        sse(textDelta(4, 2, ' world')),
    );
    await waitFor(() => expect(store.getState().live?.seq).toBe(2));
    await Promise.resolve();
    expect(seen.length).toBe(before + 1);
    const state = store.getState();
    server.last.send(
      sse(operationEvent(6, modelRequestOperation('first-output'))) +
        sse(textDelta(4, 2, ' world')),
    );
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(store.getState()).toBe(state);
    expect(seen.length).toBe(before + 1);
    expect(selectMessage(state)?.parts[0]).toMatchObject({ text: 'Hello world' });
    unsubscribe();
  });

  it('opens one connection under StrictMode (unsubscribe + resubscribe in one tick) and closes after the last', async () => {
    const { server, store, unsubscribe } = setup();
    unsubscribe();
    const again = store.subscribe(() => {});
    await live(store);
    expect(server.requests.filter((path) => path.endsWith('/events'))).toHaveLength(1);
    again();
    await waitFor(() => expect(server.last.closed).toBe(true));
    expect(store.getState().connection).toBe('idle');
  });

  it('reconnects after a drop with the cursor of its merged state, including live deltas', async () => {
    const { server, store, unsubscribe } = setup();
    await live(store);
    server.last.send(sse(textDelta(4, 1, 'l')) + sse(textDelta(4, 2, 'o')));
    await waitFor(() => expect(store.getState().live?.seq).toBe(2));
    server.last.fail();
    await waitFor(() => expect(server.connections).toHaveLength(2));
    expect(server.last.lastEventId).toBe('5:4:2');
    await live(store);
    expect(store.getState().error).toBeNull();
    unsubscribe();
  });

  it('reloads the snapshot on a gap, then applies the held event', async () => {
    const { server, store, unsubscribe } = setup();
    await live(store);
    server.snapshot = snapshot(
      7,
      { lastOperation: modelRequestOperation('first-output') },
      checkpoint(7, textMessage('Hello')),
    );
    server.last.send(sse(operationEvent(8, modelRequestOperation('completed'))));
    await waitFor(() => expect(store.getState().revision).toBe(8));
    expect(server.snapshotLoads).toBe(2);
    expect(store.getState().phase).toBe('synced');
    expect(server.connections).toHaveLength(1);
    unsubscribe();
  });

  it('on reset reloads the snapshot and resumes from its revision alone', async () => {
    const { server, store, unsubscribe } = setup();
    await live(store);
    server.last.send(sse(textDelta(4, 1, 'l')));
    await waitFor(() => expect(store.getState().live?.seq).toBe(1));
    server.snapshot = snapshot(6, {}, checkpoint(6, textMessage('Hello')));
    server.last.send('event: reset\ndata: {"type":"reset","runId":"run-1","reason":"gone"}\n\n');
    await waitFor(() => expect(server.connections).toHaveLength(2));
    expect(server.snapshotLoads).toBe(2);
    expect(server.last.lastEventId).toBe('6');
    expect(store.getState().revision).toBe(6);
    unsubscribe();
  });

  it('ends closed without reconnecting when the server ends the stream of a terminal run', async () => {
    const { server, store, unsubscribe } = setup();
    await live(store);
    server.last.send(
      sse(operationEvent(6, modelRequestOperation('completed'))) + sse(statusEvent(7, 'completed')),
    );
    server.last.end();
    await waitFor(() => expect(store.getState().connection).toBe('closed'));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(server.connections).toHaveLength(1);
    expect(selectActivity(store.getState()).kind).toBe('completed');
    unsubscribe();
  });

  it('routes every snapshot load through the host loadSnapshot', async () => {
    const server = new FakeServer(base());
    const loads: string[] = [];
    const client = createRunlightClient({
      baseUrl: 'http://runlight.test/api',
      fetch: server.fetch,
      reconnect: { initialDelayMs: 1, maxDelayMs: 4 },
      loadSnapshot: async (runId, options) => {
        loads.push(runId);
        return client.fetchSnapshot(runId, options);
      },
    });
    const store = client.run('run-1');
    expect(client.run('run-1')).toBe(store);
    const unsubscribe = store.subscribe(() => {});
    await live(store);
    await store.reload();
    expect(loads).toEqual(['run-1', 'run-1']);
    unsubscribe();
  });

  it('estimates the clock offset from serverTime and the request midpoint', async () => {
    const server = new FakeServer(base());
    server.snapshot = { ...base(), serverTime: '2026-12-02T10:00:10.000Z' };
    const times = [Date.parse('2026-12-02T10:00:00.000Z'), Date.parse('2026-12-02T10:00:00.200Z')];
    const client = createRunlightClient({
      baseUrl: 'http://x',
      fetch: server.fetch,
      now: () => times.shift()!,
    });
    const loaded = await client.fetchSnapshot('run-1');
    expect(loaded.clockOffsetMs).toBe(9_900);
  });

  it('fetchSnapshot throws typed errors: 404 run-not-found, 500 http, bad body', async () => {
    const server = new FakeServer(base());
    const client = createRunlightClient({ baseUrl: 'http://x', fetch: server.fetch });
    server.snapshotAnswer = () =>
      Response.json({ error: { code: 'run_not_found', message: 'no' } }, { status: 404 });
    await expect(client.fetchSnapshot('run-1')).rejects.toMatchObject({
      kind: 'run-not-found',
      status: 404,
    });
    server.snapshotAnswer = () => new Response('{"run":', { status: 200 });
    await expect(client.fetchSnapshot('run-1')).rejects.toMatchObject({ kind: 'malformed-json' });
    server.snapshotAnswer = () => Response.json({ ...base(), revision: 'five' });
    const error = await client.fetchSnapshot('run-1').catch((caught: unknown) => caught);
    expect(RunlightClientError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ kind: 'invalid-snapshot', field: 'revision' });
  });

  it('drops and reconnects a connection that stalls (no data, no heartbeat)', async () => {
    const { server, store, seen, unsubscribe } = setup({ stallTimeoutMs: 40 });
    await live(store);
    server.last.send(': ping\n\n');
    await waitFor(() => expect(server.connections).toHaveLength(2));
    expect(server.connections[0]!.closed).toBe(true);
    expect(seen.some((state) => state.error?.message.includes('not even a heartbeat'))).toBe(true);
    await live(store);
    unsubscribe();
  });

  it('stops at once when the snapshot says the run does not exist (no just-created window)', async () => {
    const server = new FakeServer(base());
    server.snapshotAnswer = () =>
      Response.json({ error: { code: 'run_not_found', message: 'no' } }, { status: 404 });
    const client = createRunlightClient({
      baseUrl: 'http://x',
      fetch: server.fetch,
      unknownRunRetryMs: 0,
    });
    const store = client.run('run-1');
    const unsubscribe = store.subscribe(() => {});
    await waitFor(() => expect(store.getState().connection).toBe('closed'));
    expect(store.getState().error).toMatchObject({ kind: 'run-not-found', status: 404 });
    expect(server.requests).toEqual(['/runs/run-1']);
    unsubscribe();
  });

  it('stops retrying a run that does not exist once the just-created window passed', async () => {
    const { server, store, unsubscribe } = setup({ unknownRunRetryMs: 0 });
    await live(store);
    server.eventAnswers.push({
      kind: 'response',
      response: Response.json(
        { error: { code: 'run_not_found', message: 'gone' } },
        { status: 404 },
      ),
    });
    server.last.fail();
    await waitFor(() => expect(store.getState().connection).toBe('closed'));
    expect(store.getState().error?.kind).toBe('run-not-found');
    unsubscribe();
  });
});

describe('RunStore and a refused cursor', () => {
  it('treats a 400 bad_cursor as a reset: reloads the snapshot and resumes from its revision', async () => {
    const { server, store, unsubscribe } = setup();
    await live(store);
    server.last.send(sse(textDelta(4, 1, 'l')));
    await waitFor(() => expect(store.getState().live?.seq).toBe(1));
    server.eventAnswers.push({
      kind: 'response',
      response: Response.json({ error: { code: 'bad_cursor', message: 'no' } }, { status: 400 }),
    });
    server.last.fail();
    await waitFor(() => expect(server.connections).toHaveLength(2));
    expect(server.snapshotLoads).toBe(2);
    expect(server.last.lastEventId).toBe('5');
    await live(store);
    unsubscribe();
  });

  it('stops on any other 400', async () => {
    const { server, store, unsubscribe } = setup();
    await live(store);
    server.eventAnswers.push({
      kind: 'response',
      response: Response.json({ error: { code: 'bad_run_id', message: 'no' } }, { status: 400 }),
    });
    server.last.fail();
    await waitFor(() => expect(store.getState().connection).toBe('closed'));
    expect(store.getState().error).toMatchObject({ kind: 'http', status: 400 });
    unsubscribe();
  });
});

describe('RunStore backoff and offline', () => {
  it('backs off exponentially with jitter and reports unreachable after 3 failed attempts', async () => {
    vi.useFakeTimers();
    const server = new FakeServer(base());
    const random = vi.fn(() => 1);
    const failing = () => ({
      kind: 'response' as const,
      response: new Response('down', { status: 503 }),
    });
    server.eventAnswers.push(failing(), failing(), failing(), failing());
    const client = createRunlightClient({
      baseUrl: 'http://x',
      fetch: server.fetch,
      reconnect: { initialDelayMs: 100, maxDelayMs: 250 },
      random,
    });
    const store = client.run('run-1');
    const connections: string[] = [];
    store.subscribe(() => {
      const { connection } = store.getState();
      if (connections.at(-1) !== connection) connections.push(connection);
    });
    const events = () => server.requests.filter((path) => path.endsWith('/events')).length;
    await vi.advanceTimersByTimeAsync(0);
    expect(events()).toBe(1);
    // Delays with random() = 1: 100, 200, 250 (capped), 250.
    await vi.advanceTimersByTimeAsync(99);
    expect(events()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(events()).toBe(2);
    await vi.advanceTimersByTimeAsync(200);
    expect(events()).toBe(3);
    expect(store.getState().connection).toBe('unreachable');
    await vi.advanceTimersByTimeAsync(250);
    expect(events()).toBe(4);
    await vi.advanceTimersByTimeAsync(250);
    expect(events()).toBe(5);
    expect(store.getState().connection).toBe('live');
    expect(connections).toEqual(['connecting', 'reconnecting', 'unreachable', 'live']);
    store.disconnect();
  });
});
