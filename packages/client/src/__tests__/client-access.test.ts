import { describe, expect, it, vi } from 'vitest';
import type { RunlightClientOptions } from '../create-runlight-client';
import type { ConnectionState } from '../merge/run-state';
import { selectActivity } from '../select/select-activity';
import { FakeServer, fakeClient, startedRun, waitFor } from './fake-server';

const base = startedRun;

function setup(
  server: FakeServer,
  options: Partial<RunlightClientOptions> = {},
  run: { started?: boolean } = {},
) {
  const client = fakeClient(server, options);
  const store = client.run('run-1', run);
  const connections: ConnectionState[] = [];
  const unsubscribe = store.subscribe(() => {
    const { connection } = store.getState();
    if (connections.at(-1) !== connection) connections.push(connection);
  });
  return { client, store, connections, unsubscribe };
}

const authorization = (init: RequestInit) => new Headers(init.headers).get('authorization');

describe('credentials', () => {
  it('401, then refreshed headers and retry(), then live: headers are asked before every request', async () => {
    const server = new FakeServer(base());
    let token = 'expired';
    const asked: string[] = [];
    const headers = vi.fn(async () => {
      asked.push(token);
      return { authorization: `Bearer ${token}` };
    });
    server.snapshotAnswer = () =>
      authorization(server.inits.at(-1)!) === 'Bearer fresh'
        ? Response.json(server.snapshot)
        : Response.json({ error: { code: 'unauthorized', message: 'sign in' } }, { status: 401 });
    const { client, store, connections, unsubscribe } = setup(server, {
      headers,
      credentials: 'include',
      // The slow automatic retry must not be what gets us out in this test.
      reconnect: { initialDelayMs: 1, maxDelayMs: 60_000 },
    });
    await waitFor(() => expect(store.getState().connection).toBe('unauthorized'));
    expect(store.getState().error).toMatchObject({ kind: 'unauthorized', status: 401 });
    expect(server.requests).toEqual(['/api/runs/run-1']);

    token = 'fresh';
    client.retry();
    await waitFor(() => expect(store.getState().connection).toBe('live'));
    expect(store.getState().error).toBeNull();
    expect(connections).toEqual(['connecting', 'unauthorized', 'connecting', 'live']);
    // Snapshot and event stream both carried the fresh token and the credentials mode.
    expect(server.inits.slice(1).map(authorization)).toEqual(['Bearer fresh', 'Bearer fresh']);
    expect(server.inits.every((init) => init.credentials === 'include')).toBe(true);
    expect(server.last.lastEventId).toBe('5');

    // A reconnect asks again: a token rotated meanwhile is used.
    token = 'rotated';
    server.snapshotAnswer = null;
    server.last.fail();
    await waitFor(() => expect(server.connections).toHaveLength(2));
    expect(authorization(server.inits.at(-1)!)).toBe('Bearer rotated');
    expect(asked.length).toBe(server.inits.length);
    unsubscribe();
  });

  it('a 403 on the event stream is unauthorized too, and store.retry() leaves it', async () => {
    const server = new FakeServer(base());
    server.eventAnswers.push({
      kind: 'response',
      response: Response.json({ error: { code: 'forbidden', message: 'no' } }, { status: 403 }),
    });
    const { store, unsubscribe } = setup(server, {
      reconnect: { initialDelayMs: 1, maxDelayMs: 60_000 },
    });
    await waitFor(() => expect(store.getState().connection).toBe('unauthorized'));
    expect(store.getState().error).toMatchObject({ kind: 'unauthorized', status: 403 });
    expect(store.getState().run?.revision).toBe(5); // the last good state stays
    store.retry();
    await waitFor(() => expect(store.getState().connection).toBe('live'));
    unsubscribe();
  });
});

/** The page started this run (it got the id from its start request): the long grace applies. */
const STARTED = { started: true };

describe('a run the client was just given', () => {
  it('retries a 404 within notFoundRetryMs (the run is created on a later tick) and goes live', async () => {
    const server = new FakeServer(base());
    let notYet = 3;
    server.snapshotAnswer = () =>
      notYet-- > 0
        ? Response.json({ error: { code: 'run_not_found', message: 'no' } }, { status: 404 })
        : Response.json(server.snapshot);
    const { store, unsubscribe } = setup(server, {}, STARTED);
    await waitFor(() => expect(store.getState().connection).toBe('live'));
    expect(server.snapshotLoads).toBe(4);
    unsubscribe();
  });

  it('a run that does not exist yet is its own state (not-created) while the client keeps asking', async () => {
    const server = new FakeServer(base());
    server.snapshotAnswer = () =>
      Response.json({ error: { code: 'run_not_found', message: 'no' } }, { status: 404 });
    // The default window (30 s) is far from over.
    const { store, unsubscribe } = setup(server, {}, STARTED);
    await waitFor(() => expect(server.snapshotLoads).toBeGreaterThanOrEqual(2));
    expect(store.getState().error?.kind).toBe('run-not-found');
    expect(store.getState().connection).not.toBe('closed');
    expect(selectActivity(store.getState()).kind).toBe('not-created');
    unsubscribe();
  });

  it('waiting for a run not created yet never reads offline or unreachable: the server answered every time', async () => {
    const server = new FakeServer(base());
    server.snapshotAnswer = () =>
      Response.json({ error: { code: 'run_not_found', message: 'no' } }, { status: 404 });
    const { store, connections, unsubscribe } = setup(
      server,
      { reconnect: { initialDelayMs: 1, maxDelayMs: 2 } },
      STARTED,
    );
    // Well past `unreachableAfterAttempts` (3) answers, inside the window.
    await waitFor(() => expect(server.snapshotLoads).toBeGreaterThanOrEqual(6));
    expect(selectActivity(store.getState()).kind).toBe('not-created');
    expect(connections).not.toContain('offline');
    expect(connections).not.toContain('unreachable');
    unsubscribe();
  });

  it('closes after the window, and retry() reopens it once the run exists', async () => {
    const server = new FakeServer(base());
    let clock = 0;
    server.snapshotAnswer = () => {
      clock += 1_000;
      return Response.json({ error: { code: 'run_not_found', message: 'no' } }, { status: 404 });
    };
    const { store, unsubscribe } = setup(
      server,
      { notFoundRetryMs: 2_500, now: () => clock },
      STARTED,
    );
    await waitFor(() => expect(store.getState().connection).toBe('closed'));
    expect(store.getState().error?.kind).toBe('run-not-found');
    // Past the window it gives up: loading with the error ("could not be loaded").
    expect(selectActivity(store.getState()).kind).toBe('loading');
    expect(server.snapshotLoads).toBe(3);
    server.snapshotAnswer = null;
    store.retry();
    await waitFor(() => expect(store.getState().connection).toBe('live'));
    unsubscribe();
  });
});
