import { at, modelRequestOperation, snapshot } from '@runlight/test-utils';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRunlightClient, type RunlightClientOptions } from '../create-runlight-client';
import type { ConnectionState, RunState } from '../merge/run-state';
import { describeRunStatus } from '../status/describe-run-status';
import { selectRunStatus } from '../status/select-run-status';
import { defaultRunStatusLabels } from '../words/run-status-labels';
import { FakeServer } from './fake-server';

afterEach(() => {
  vi.useRealTimers();
});

/** The words every binding's `RunStatus` shows for a state. */
const words = (state: RunState) => {
  const status = describeRunStatus(selectRunStatus(state), defaultRunStatusLabels);
  return { label: status.label, detail: status.detail, until: status.until };
};

const notFound = () =>
  Response.json({ error: { code: 'run_not_found', message: 'no' } }, { status: 404 });

/** A client with the library's defaults (backoff, windows, thresholds) on `fetch`. */
function start(
  fetch: typeof globalThis.fetch,
  options: Partial<RunlightClientOptions> = {},
  run: { started?: boolean } = {},
) {
  const client = createRunlightClient({ baseUrl: 'http://runlight.test/api', fetch, ...options });
  const store = client.run('run-1', run);
  const connections: ConnectionState[] = [];
  const unsubscribe = store.subscribe(() => {
    const { connection } = store.getState();
    if (connections.at(-1) !== connection) connections.push(connection);
  });
  return { client, store, connections, unsubscribe };
}

describe('a run that does not exist (issue 45.3)', () => {
  it('one this client did not start reads "This run does not exist" within 2 s by default', async () => {
    vi.useFakeTimers({ now: Date.parse(at(0)) });
    const server = new FakeServer(snapshot(1));
    server.snapshotAnswer = notFound;
    const { store, unsubscribe } = start(server.fetch);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(store.getState().connection).toBe('closed');
    expect(words(store.getState()).label).toBe('This run does not exist');
    unsubscribe();
  });

  it('one this client started keeps its grace (notFoundRetryMs, 30 s) and is there once created', async () => {
    vi.useFakeTimers({ now: Date.parse(at(0)) });
    const server = new FakeServer(snapshot(1));
    server.snapshotAnswer = notFound;
    const { store, connections, unsubscribe } = start(server.fetch, {}, { started: true });
    await vi.advanceTimersByTimeAsync(20_000);
    expect(words(store.getState()).label).toBe('Waiting for the run to start');
    expect(connections).not.toContain('unreachable');
    server.snapshotAnswer = null;
    await vi.advanceTimersByTimeAsync(15_000);
    expect(store.getState().connection).toBe('live');
    unsubscribe();
  });

  it('one this client started, still missing when its grace ends, does not exist — at the end, not a backoff later', async () => {
    vi.useFakeTimers({ now: Date.parse(at(0)) });
    const server = new FakeServer(snapshot(1));
    server.snapshotAnswer = notFound;
    const { store, unsubscribe } = start(server.fetch, {}, { started: true });
    await vi.advanceTimersByTimeAsync(29_999);
    expect(store.getState().connection).not.toBe('closed');
    await vi.advanceTimersByTimeAsync(1);
    expect(store.getState().connection).toBe('closed');
    expect(words(store.getState()).label).toBe('This run does not exist');
    unsubscribe();
  });
});

/** A server the test kills and brings back: while down every request fails as fetch does. */
function killableServer() {
  const server = new FakeServer(
    snapshot(5, { lastOperation: modelRequestOperation('started', { startedAt: at(-12) }) }),
  );
  let down = false;
  const fetch: typeof globalThis.fetch = (input, init) =>
    down ? Promise.reject(new TypeError('fetch failed')) : server.fetch(input, init);
  return {
    server,
    fetch,
    kill() {
      down = true;
      server.last.fail();
    },
    revive() {
      down = false;
    },
  };
}

describe('a server that cannot be reached is its own state (issue 45.4)', () => {
  it('a stream that cannot reconnect for 3 s reads "Cannot reach the server", the run as last known, its time stopped; back when the server is', async () => {
    vi.useFakeTimers({ now: Date.parse(at(0)) });
    const killable = killableServer();
    const { store, connections, unsubscribe } = start(killable.fetch);
    await vi.advanceTimersByTimeAsync(0);
    expect(store.getState().connection).toBe('live');
    expect(words(store.getState()).label).toBe('Waiting for the model');

    killable.kill();
    await vi.advanceTimersByTimeAsync(0);
    const killedAt = Date.now();
    expect(store.getState().connection).toBe('reconnecting');
    await vi.advanceTimersByTimeAsync(3_000);
    const state = store.getState();
    expect(state.connection).toBe('unreachable');
    expect(state.lastHeardAt).toBe(killedAt);
    expect(words(state)).toEqual({
      label: 'Cannot reach the server',
      detail: 'Last known: Waiting for the model',
      // The wait's time stops at the last answer: 12 s, not 15 s and counting.
      until: new Date(killedAt).toISOString(),
    });
    expect(selectRunStatus(state).since).toBe(at(-12));
    // The run's lease runs out meanwhile: the client cannot know, so it does not say stalled.
    await vi.advanceTimersByTimeAsync(60_000);
    expect(words(store.getState()).detail).toBe('Last known: Waiting for the model');

    killable.revive();
    store.retry();
    await vi.advanceTimersByTimeAsync(0);
    expect(store.getState().connection).toBe('live');
    expect(store.getState().lastHeardAt).toBeUndefined();
    expect(words(store.getState())).toEqual({
      label: 'Waiting for the model',
      detail: undefined,
      until: undefined,
    });
    expect(connections).toEqual(['connecting', 'live', 'reconnecting', 'unreachable', 'live']);
    unsubscribe();
  });

  it('a snapshot load that cannot reach the server says so at once, and loads when it is back', async () => {
    vi.useFakeTimers({ now: Date.parse(at(0)) });
    const { server } = killableServer();
    let up = false;
    const fetch: typeof globalThis.fetch = (input, init) =>
      up ? server.fetch(input, init) : Promise.reject(new TypeError('fetch failed'));
    const { store, unsubscribe } = start(fetch);
    await vi.advanceTimersByTimeAsync(0);
    expect(store.getState().connection).toBe('unreachable');
    expect(words(store.getState()).label).toBe('Cannot reach the server');
    up = true;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(store.getState().connection).toBe('live');
    expect(words(store.getState()).label).toBe('Waiting for the model');
    unsubscribe();
  });
});

describe('requests that cannot hang silently (issue 48)', () => {
  it('a control request the browser has not answered makes the connection "waiting", never live; answered, live again', async () => {
    vi.useFakeTimers({ now: Date.parse(at(0)) });
    const server = new FakeServer(snapshot(5));
    let answer: (() => void) | undefined;
    const fetch: typeof globalThis.fetch = (input, init) => {
      if (init?.method !== 'POST') return server.fetch(input, init);
      return new Promise<Response>((resolve) => {
        answer = () => resolve(new Response(null, { status: 202 }));
      });
    };
    const { client, store, unsubscribe } = start(fetch);
    await vi.advanceTimersByTimeAsync(0);
    expect(store.getState().connection).toBe('live');
    const cancelled = client.cancel('run-1');
    await vi.advanceTimersByTimeAsync(999);
    expect(store.getState().connection).toBe('live');
    await vi.advanceTimersByTimeAsync(1);
    expect(store.getState().connection).toBe('waiting');
    answer!();
    await cancelled;
    await vi.advanceTimersByTimeAsync(0);
    expect(store.getState().connection).toBe('live');
    unsubscribe();
  });

  it('a control request with no answer fails with `timeout` after requestTimeoutMs (15 s), its request aborted', async () => {
    vi.useFakeTimers({ now: Date.parse(at(0)) });
    let signal: AbortSignal | undefined;
    const fetch: typeof globalThis.fetch = (_input, init) => {
      signal = init?.signal ?? undefined;
      return new Promise<Response>(() => {});
    };
    const client = createRunlightClient({ baseUrl: 'http://runlight.test/api', fetch });
    const failure = client.cancel('run-1').catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(15_000);
    expect(await failure).toMatchObject({ kind: 'timeout' });
    expect(signal?.aborted).toBe(true);
  });

  it('a snapshot load queued in the browser reads "Waiting for a connection", times out after 15 s and is tried again', async () => {
    vi.useFakeTimers({ now: Date.parse(at(0)) });
    const server = new FakeServer(snapshot(5));
    let holding = true;
    let loads = 0;
    const fetch: typeof globalThis.fetch = (input, init) => {
      if (String(input).endsWith('/events') || !holding) return server.fetch(input, init);
      loads++;
      return new Promise<Response>((_resolve, reject) => {
        init?.signal?.addEventListener('abort', () => reject(init.signal?.reason));
      });
    };
    const { store, connections, unsubscribe } = start(fetch);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(store.getState().connection).toBe('waiting');
    expect(words(store.getState()).label).toBe('Waiting for a connection');
    await vi.advanceTimersByTimeAsync(14_000);
    expect(store.getState().error?.kind).toBe('timeout');
    holding = false;
    await vi.advanceTimersByTimeAsync(5_000);
    expect(loads).toBe(1);
    expect(store.getState().connection).toBe('live');
    // Never live before the browser answered; a load with no answer is a server not reached.
    expect(connections.indexOf('waiting')).toBe(1);
    expect(connections.indexOf('unreachable')).toBeGreaterThan(1);
    expect(connections.indexOf('live')).toBe(connections.length - 1);
    unsubscribe();
  });
});

describe('the event stream', () => {
  it('unanswered, reads waiting — never live — and live once the browser answers', async () => {
    vi.useFakeTimers({ now: Date.parse(at(0)) });
    const server = new FakeServer(snapshot(5));
    let answer: (() => void) | undefined;
    const fetch: typeof globalThis.fetch = (input, init) => {
      if (!String(input).endsWith('/events')) return server.fetch(input, init);
      return new Promise<Response>((resolve) => {
        answer = () => resolve(server.fetch(input, init));
      });
    };
    const { store, connections, unsubscribe } = start(fetch);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(store.getState().connection).toBe('waiting');
    answer!();
    await vi.advanceTimersByTimeAsync(0);
    expect(store.getState().connection).toBe('live');
    expect(connections).toEqual(['connecting', 'waiting', 'live']);
    unsubscribe();
  });
});
