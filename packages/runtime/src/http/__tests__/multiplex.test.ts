import { afterEach, describe, expect, it } from 'vitest';
import { RunEventHub } from '../../events/event-hub';
import { createAgentRuntimeStore } from '../../store/agent-runtime-store';
import { createMemoryDriver } from '../../store/driver/memory-driver';
import { createMultiplexHandlers } from '../create-multiplex-handlers';
import { createRunHandlers } from '../create-run-handlers';
import { createRunRouter } from '../routes/create-run-router';
import { toNodeListener } from '../routes/to-node-listener';
import { asPublic, listen, publishingDriver, ScriptedRun, SseReader } from './http-test-kit';

const NOW = new Date('2026-12-02T15:00:00.000Z');
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function fixture(authorize?: (runId: string) => boolean, brokenRun?: string) {
  const hub = new RunEventHub();
  const { driver } = publishingDriver(createMemoryDriver(), hub);
  const store = createAgentRuntimeStore(driver);
  const handlers = createRunHandlers({ store, runtime: hub });
  const errors: unknown[] = [];
  const multiplex = createMultiplexHandlers({
    store: {
      readEvents: (runId, options) => store.readEvents(runId, options),
      // A run whose stored record no longer parses: reading it throws.
      getSnapshot: async (runId) => {
        if (runId === brokenRun)
          throw new SyntaxError('stored record of secret-host does not parse');
        return store.getSnapshot(runId);
      },
    },
    onError: (error) => errors.push(error),
    runtime: hub,
    heartbeatMs: 50,
    now: () => NOW,
  });
  const server = await listen(
    toNodeListener(
      createRunRouter({
        handlers,
        multiplex,
        basePath: '/api',
        authorize: authorize ? ({ runId }) => authorize(runId) : 'public',
      }),
    ),
  );
  cleanups.push(server.close);
  const url = (path: string) => `${server.origin}/api${path}`;
  const open = async (query: string, signal?: AbortSignal) => {
    const response = await fetch(url(`/run-events?${query}`), { signal: signal ?? null });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    return new SseReader(response.body!);
  };
  return { hub, store, url, open, errors };
}

const runOf = (data: string) => (JSON.parse(data) as { runId: string }).runId;

describe('multiplexed event stream', () => {
  it('each run streams from its own cursor, nothing before it; run-open first, run-end after a terminal run; the response ends when no run is left', async () => {
    const f = await fixture();
    const a = await ScriptedRun.start(f, 'run-a');
    const b = await ScriptedRun.start(f, 'run-b');
    await a.startOperation(); // revision 3
    a.delta('Hel');
    await a.checkpoint(); // revision 4
    await b.startOperation();
    const reader = await f.open(`run=${encodeURIComponent('run-a@3')}&run=run-b`);

    const seen: { event: string; id: string | null; runId: string }[] = [];
    const take = async (count: number) => {
      while (seen.length < count) {
        const message = await reader.nextMessage();
        if (message === null) throw new Error('ended early');
        seen.push({ event: message.event, id: message.id, runId: runOf(message.data) });
      }
    };
    await take(6);
    const ofA = seen.filter((m) => m.runId === 'run-a');
    const ofB = seen.filter((m) => m.runId === 'run-b');
    expect(ofA.map((m) => m.event)).toEqual(['run-open', 'assistant-checkpoint']);
    expect(ofA[1]!.id).toBe('4');
    expect(ofB.map((m) => m.event)).toEqual([
      'run-open',
      'run-status',
      'run-status',
      'run-operation',
    ]);

    a.delta('lo');
    await a.endOperation();
    await a.complete();
    await b.endOperation();
    await b.complete();
    const rest = await reader.rest();
    const restA = rest.filter((m) => runOf(m.data) === 'run-a').map((m) => [m.event, m.id]);
    expect(restA).toEqual([
      ['run-delta', '4:4:1'],
      ['run-operation', '5:4:1'],
      ['run-status', '6:4:1'],
      ['run-end', null],
    ]);
    expect(rest.filter((m) => runOf(m.data) === 'run-b').map((m) => m.event)).toEqual([
      'run-operation',
      'run-status',
      'run-end',
    ]);
  });

  it('a stale delta cursor resets that run alone; an unknown run and a bad cursor are refused for themselves', async () => {
    const f = await fixture();
    const a = await ScriptedRun.start(f, 'run-a');
    const b = await ScriptedRun.start(f, 'run-b');
    await a.startOperation();
    await a.checkpoint(); // revision 4
    await b.startOperation();
    const controller = new AbortController();
    const reader = await f.open(
      ['run-a@4:4:9', 'run-b@3', 'nobody@0', 'run-c@01']
        .map((r) => `run=${encodeURIComponent(r)}`)
        .join('&'),
      controller.signal,
    );
    const messages: { event: string; data: string }[] = [];
    while (messages.filter((m) => m.event === 'run-end' || m.event === 'run-error').length < 3) {
      const message = await reader.nextMessage();
      if (message === null) break;
      messages.push(message);
    }
    const byRun = (runId: string) =>
      messages.filter((m) => runOf(m.data) === runId).map((m) => m.event);
    expect(byRun('run-a')).toEqual(['run-open', 'reset', 'run-end']);
    expect(messages.find((m) => m.event === 'run-error' && runOf(m.data) === 'nobody')?.data).toBe(
      JSON.stringify({ runId: 'nobody', status: 404, code: 'run_not_found' }),
    );
    expect(messages.find((m) => m.event === 'run-error' && runOf(m.data) === 'run-c')?.data).toBe(
      JSON.stringify({ runId: 'run-c', status: 400, code: 'bad_cursor' }),
    );
    expect(byRun('run-b')).toEqual(['run-open']); // still following
    const ping = await reader.next();
    expect(ping).toEqual({ kind: 'comment', text: 'ping' });
    controller.abort();
    await reader.cancel();
    await expect.poll(() => f.hub.listenerCount('run-b')).toBe(0);
  });

  it('authorize refuses a run with 403 for that run only; bad or too many ids refuse the request', async () => {
    const f = await fixture((runId) => runId !== 'secret');
    await ScriptedRun.start(f, 'secret');
    const open = await ScriptedRun.start(f, 'open');
    const reader = await f.open('run=secret&run=open');
    const first = await reader.nextMessage();
    expect(first?.event).toBe('run-error');
    expect(JSON.parse(first!.data)).toEqual({ runId: 'secret', status: 403, code: 'forbidden' });
    await open.complete();
    const rest = await reader.rest();
    expect(rest.map((m) => [m.event, runOf(m.data)])).toContainEqual(['run-end', 'open']);

    expect((await fetch(f.url('/run-events?run=bad%20id'))).status).toBe(400);
    expect((await fetch(f.url('/run-events'))).status).toBe(400);
    const many = Array.from({ length: 101 }, (_, i) => `run=r${i}`).join('&');
    expect((await fetch(f.url(`/run-events?${many}`))).status).toBe(400);
    expect((await fetch(f.url('/run-events'), { method: 'POST' })).status).toBe(405);
  });
});

describe('batched snapshots', () => {
  it('GET /runs?ids= answers the snapshots found (as the single route would), the missing ids and one server time', async () => {
    const f = await fixture((runId) => runId !== 'secret');
    const a = await ScriptedRun.start(f, 'run-a');
    await a.startOperation();
    await ScriptedRun.start(f, 'run-b');
    await ScriptedRun.start(f, 'secret');
    const response = await fetch(f.url('/runs?ids=run-b,nobody,run-a,secret'));
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.json()).toEqual({
      snapshots: [
        { ...asPublic(await f.store.getSnapshot('run-b')), serverTime: NOW.toISOString() },
        { ...asPublic(await f.store.getSnapshot('run-a')), serverTime: NOW.toISOString() },
      ],
      missing: ['nobody'],
      forbidden: ['secret'],
      errors: [],
      serverTime: NOW.toISOString(),
    });
    expect((await fetch(f.url('/runs?ids=a,b%20c'))).status).toBe(400);
  });

  it('GET /runs?ids=ok,bad: the broken run is a typed error entry and the other loads (200)', async () => {
    const f = await fixture(undefined, 'bad');
    await ScriptedRun.start(f, 'ok');
    await ScriptedRun.start(f, 'bad');
    const response = await fetch(f.url('/runs?ids=ok,bad'));
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.snapshots).toEqual([
      { ...asPublic(await f.store.getSnapshot('ok')), serverTime: NOW.toISOString() },
    ]);
    expect(body.errors).toEqual([
      { runId: 'bad', status: 500, code: 'internal', message: expect.any(String) },
    ]);
    // The cause goes to onError, never to the browser.
    expect(JSON.stringify(body)).not.toContain('secret-host');
    expect(f.errors).toHaveLength(1);
  });
});
