import { parseServedRunSnapshot } from '@runlight/protocol';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RunEventHub } from '../../events/event-hub';
import { createAgentRuntimeStore } from '../../store/agent-runtime-store';
import { createMemoryDriver } from '../../store/driver/memory-driver';
import { createRunHandlers } from '../create-run-handlers';
import { createRunRouter } from '../routes/create-run-router';
import { toNodeListener } from '../routes/to-node-listener';
import { asPublic, createHttpFixture, listen, ScriptedRun } from './http-test-kit';

const NOW = new Date('2026-12-02T15:00:00.000Z');
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function fixture(options: Parameters<typeof createHttpFixture>[0] = {}) {
  const f = await createHttpFixture({ now: () => NOW, ...options });
  cleanups.push(f.close);
  return f;
}

/** A server whose store driver fails every read with a message full of internals. */
async function brokenServer() {
  const onError = vi.fn();
  const memory = createMemoryDriver();
  const secret = new Error('connect ECONNREFUSED db.internal:5432 password=hunter2');
  const store = createAgentRuntimeStore({
    ...memory,
    load: async () => {
      throw secret;
    },
    readEvents: async () => {
      throw secret;
    },
  });
  const hub = new RunEventHub();
  const handlers = createRunHandlers({ store, runtime: hub, onError });
  const server = await listen(
    toNodeListener(createRunRouter({ handlers, basePath: '/api', authorize: 'public' })),
  );
  cleanups.push(server.close);
  return { origin: server.origin, onError, secret, hub };
}

describe('snapshot', () => {
  it('answers the store snapshot plus the server clock, never cached', async () => {
    const f = await fixture();
    const run = await ScriptedRun.start(f, 'run-1');
    await run.startOperation();
    run.delta('Hel');
    await run.checkpoint();

    const response = await fetch(f.url('/runs/run-1'));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = await response.json();
    expect(body).toEqual({
      ...asPublic(await f.store.getSnapshot('run-1')),
      serverTime: NOW.toISOString(),
    });
    // What the client will parse it with.
    expect(parseServedRunSnapshot(body).revision).toBe(run.revision);
  });

  it('answers 404 run_not_found for an unknown run', async () => {
    const f = await fixture();
    const response = await fetch(f.url('/runs/nope'));
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: { code: 'run_not_found', message: 'Run nope does not exist' },
    });
  });

  it('answers 500 with a generic message and hands the real error to onError', async () => {
    const { origin, onError, secret } = await brokenServer();
    const response = await fetch(`${origin}/api/runs/run-1`);
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({
      error: { code: 'internal', message: 'The server could not answer this request.' },
    });
    expect(text).not.toMatch(/hunter2|ECONNREFUSED|db\.internal/);
    expect(onError).toHaveBeenCalledWith(secret);
  });
});

describe('events: refusals before the stream opens', () => {
  it('answers 404 for an unknown run and keeps no listener', async () => {
    const f = await fixture();
    const response = await fetch(f.url('/runs/ghost/events'));
    expect(response.status).toBe(404);
    expect((await response.json()).error.code).toBe('run_not_found');
    expect(f.hub.listenerCount('ghost')).toBe(0);
  });

  it('answers 500 generically when the store fails and keeps no listener', async () => {
    const { origin, hub } = await brokenServer();
    const response = await fetch(`${origin}/api/runs/run-1/events`);
    expect(response.status).toBe(500);
    expect(await response.text()).not.toMatch(/hunter2/);
    expect(hub.listenerCount('run-1')).toBe(0);
  });

  const malformed: [string, string][] = [
    ['letters', 'abc'],
    ['negative revision', '-1'],
    ['fraction', '1.5'],
    ['leading zero', '01'],
    ['two parts', '3:2'],
    ['four parts', '3:2:1:0'],
    ['seq zero', '3:2:0'],
    ['empty part', '3::1'],
    ['base newer than revision', '3:4:1'],
    ['trailing colon', '3:'],
    ['inner space', '3 :2:1'],
    ['too large', '99999999999999999999'],
    ['too long', `1:1:${'1'.repeat(70)}`],
  ];

  it.each(malformed)('answers 400 bad_cursor to Last-Event-ID with %s (%s)', async (_, cursor) => {
    const f = await fixture();
    await ScriptedRun.start(f, 'run-1');
    const response = await fetch(f.url('/runs/run-1/events'), {
      headers: { 'Last-Event-ID': cursor },
    });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const body = await response.json();
    expect(body.error.code).toBe('bad_cursor');
    expect(body.error.message).toMatch(/^Malformed cursor/);
    expect(f.hub.listenerCount('run-1')).toBe(0);
  });

  it.each(malformed)('answers 400 bad_cursor to ?after= with %s (%s)', async (_, cursor) => {
    const f = await fixture();
    await ScriptedRun.start(f, 'run-1');
    const response = await fetch(f.url(`/runs/run-1/events?after=${encodeURIComponent(cursor)}`));
    expect(response.status).toBe(400);
    expect((await response.json()).error.code).toBe('bad_cursor');
  });

  it('checks the cursor before the run: a bad cursor on an unknown run is 400', async () => {
    const f = await fixture();
    const response = await fetch(f.url('/runs/ghost/events?after=x'));
    expect(response.status).toBe(400);
  });
});

describe('events: a store failure after the stream opened', () => {
  it('ends the stream, reports the error and releases the subscription', async () => {
    const onError = vi.fn();
    const failure = new Error('event log unavailable');
    const memory = createMemoryDriver();
    const hub = new RunEventHub();
    const store = createAgentRuntimeStore(memory);
    await store.createRun({ runId: 'run-1' });
    const handlers = createRunHandlers({
      store: { ...store, readEvents: () => Promise.reject(failure) },
      runtime: hub,
      onError,
    });
    const server = await listen(toNodeListener(createRunRouter({ handlers, authorize: 'public' })));
    cleanups.push(server.close);
    const response = await fetch(`${server.origin}/runs/run-1/events`);
    expect(response.status).toBe(200);
    // The opening comment only (every stream writes it at once), then the end.
    expect(await response.text()).toBe(': open\n\n');
    expect(onError).toHaveBeenCalledWith(failure);
    expect(hub.listenerCount('run-1')).toBe(0);
  });
});

describe('events: cursor sources', () => {
  it('treats an empty Last-Event-ID as absent and falls back to ?after=', async () => {
    const f = await fixture();
    await ScriptedRun.start(f, 'run-1');
    const response = await fetch(f.url('/runs/run-1/events?after=1'), {
      headers: { 'Last-Event-ID': '' },
    });
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('\ndata:')) text += new TextDecoder().decode((await reader.read()).value);
    // After the opening comment, the first message is the one after ?after=1.
    expect(text).toMatch(/^: open\n\nevent: run-status\nid: 2\n/);
    await reader.cancel();
  });
});

describe('handlers without a router', () => {
  it('validate the run id they are given', async () => {
    const handlers = createRunHandlers({
      store: createAgentRuntimeStore(createMemoryDriver()),
      runtime: new RunEventHub(),
    });
    const request = new Request('http://localhost/x');
    for (const response of [
      await handlers.snapshot(request, 'a b'),
      await handlers.events(request, ''),
    ]) {
      expect(response.status).toBe(400);
      expect((await response.json()).error.code).toBe('bad_run_id');
    }
  });
});
