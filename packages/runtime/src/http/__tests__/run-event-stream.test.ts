import { afterEach, describe, expect, it, vi } from 'vitest';
import { RunEventHub } from '../../events/event-hub';
import { createAgentRuntimeStore } from '../../store/agent-runtime-store';
import { createMemoryDriver } from '../../store/driver/memory-driver';
import { createRunHandlers, type RunHandlersOptions } from '../create-run-handlers';
import {
  createHttpFixture,
  Follower,
  lossySource,
  publishingDriver,
  ScriptedRun,
  type SseReader,
} from './http-test-kit';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function fixture(options: Parameters<typeof createHttpFixture>[0] = {}) {
  const f = await createHttpFixture(options);
  cleanups.push(f.close);
  return f;
}

/** Reads `count` messages into `follower` (which checks order, gaps and ids). */
async function follow(reader: SseReader, follower: Follower, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const message = await reader.nextMessage();
    if (!message) throw new Error(`the stream ended after ${i} of ${count} messages`);
    follower.apply(message);
  }
}

/** A run at revision 5: created(1) acquired(2) started(3) checkpoint "Hello"(4) + deltas. */
async function runWithText(f: Awaited<ReturnType<typeof fixture>>, runId = 'run-1') {
  const run = await ScriptedRun.start(f, runId);
  await run.startOperation(); // 3
  run.delta('Hel');
  run.delta('lo');
  await run.checkpoint(); // 4
  run.delta(', wor'); // 4:1
  run.delta('ld'); // 4:2
  return run;
}

describe('events: replay and resume', () => {
  it('replays everything with no cursor, then streams live events', async () => {
    const f = await fixture();
    const run = await runWithText(f);
    const reader = await f.events('run-1');
    const follower = new Follower();
    await follow(reader, follower, 6);
    expect(follower.log).toEqual(['r1', 'r2', 'r3', 'r4', 'd4.1', 'd4.2']);
    expect(follower.text).toBe('Hello, world');

    run.delta('!');
    await run.endOperation();
    await run.checkpoint();
    await run.complete();
    for (const message of await reader.rest()) follower.apply(message);
    expect(follower.log.slice(6)).toEqual(['d4.3', 'r5', 'r6', 'r7']);
    expect(follower.text).toBe('Hello, world!');
    expect(follower.terminal).toBe(true);
  });

  it('gives every message its cursor as id: "<R>" or "<R>:<B>:<S>"', async () => {
    const f = await fixture();
    await runWithText(f);
    const reader = await f.events('run-1');
    const ids: (string | null)[] = [];
    for (let i = 0; i < 6; i++) ids.push((await reader.nextMessage())!.id);
    expect(ids).toEqual(['1', '2', '3', '4', '4:4:1', '4:4:2']);
    await reader.cancel();
  });

  it('resumes after ?after=<R> with the durable events after R, then the buffered deltas', async () => {
    const f = await fixture();
    const run = await runWithText(f);
    const follower = Follower.fromSnapshot(await f.store.getSnapshot('run-1'));
    // A client holding revision 2 only.
    const early = new Follower();
    early.revision = 2;
    const reader = await f.events('run-1', { after: '2' });
    await follow(reader, early, 4);
    expect(early.log).toEqual(['r3', 'r4', 'd4.1', 'd4.2']);
    expect(early.text).toBe('Hello, world');

    // A client that reloaded the snapshot mid-stream sees the text so far at once.
    const reader2 = await f.events('run-1', { after: `${follower.revision}` });
    await follow(reader2, follower, 2);
    expect(follower.text).toBe('Hello, world');
    run.delta('?');
    await follow(reader2, follower, 1);
    await follow(reader, early, 1);
    expect([follower.text, early.text]).toEqual(['Hello, world?', 'Hello, world?']);
    await Promise.all([reader.cancel(), reader2.cancel()]);
  });

  it('resumes after "<R>:<B>:<S>" with only the deltas after S', async () => {
    const f = await fixture();
    const run = await runWithText(f);
    run.delta('.'); // 4:3
    const reader = await f.events('run-1', { cursor: '4:4:1' });
    const messages = [await reader.nextMessage(), await reader.nextMessage()];
    expect(messages.map((m) => m?.id)).toEqual(['4:4:2', '4:4:3']);
    expect(messages.map((m) => JSON.parse(m!.data).chunk.delta)).toEqual(['ld', '.']);
    await reader.cancel();
  });

  it('lets Last-Event-ID win over ?after=', async () => {
    const f = await fixture();
    await runWithText(f);
    const reader = await f.events('run-1', { cursor: '3', after: '1' });
    expect((await reader.nextMessage())?.id).toBe('4');
    await reader.cancel();
    const byQuery = await f.events('run-1', { after: '1' });
    expect((await byQuery.nextMessage())?.id).toBe('2');
    await byQuery.cancel();
  });

  it('sends the newer checkpoint instead of deltas on an older base', async () => {
    const f = await fixture();
    const run = await runWithText(f);
    await run.checkpoint(); // 5 holds "Hello, world"
    run.delta('!'); // 5:1
    const follower = new Follower();
    follower.revision = 4;
    follower.checkpointRevision = 4;
    follower.checkpointText = 'Hello';
    follower.deltaText = ', wor';
    follower.delta = { baseRevision: 4, seq: 1 };
    const reader = await f.events('run-1', { cursor: follower.cursor });
    await follow(reader, follower, 2);
    expect(follower.log).toEqual(['r5', 'd5.1']);
    expect(follower.text).toBe('Hello, world!');
    await reader.cancel();
  });

  it('reads durable events it was not notified of from the store before the next one', async () => {
    const f = await fixture();
    const run = await runWithText(f);
    const follower = Follower.fromSnapshot(await f.store.getSnapshot('run-1'));
    const reader = await f.events('run-1', { after: follower.cursor });
    await follow(reader, follower, 2);
    f.holdNext(); // the publish of revision 5 is lost
    await run.endOperation(); // 5
    await run.startOperation(); // 6
    await follow(reader, follower, 2);
    expect(follower.log.slice(-2)).toEqual(['r5', 'r6']);
    await reader.cancel();
  });

  it('fills a hole in live deltas from the buffer', async () => {
    const f = await fixture({
      source: (hub) => lossySource(hub, (e) => e.type === 'run-delta' && e.seq === 3),
    });
    const run = await runWithText(f);
    const follower = Follower.fromSnapshot(await f.store.getSnapshot('run-1'));
    const reader = await f.events('run-1', { after: follower.cursor });
    await follow(reader, follower, 2);
    run.delta('!'); // 4:3, missed by the subscriber
    run.delta('?'); // 4:4
    await follow(reader, follower, 2);
    expect(follower.log.slice(-2)).toEqual(['d4.3', 'd4.4']);
    expect(follower.text).toBe('Hello, world!?');
    await reader.cancel();
  });

  it('waits for the next checkpoint when this process lacks the text so far (no reset loop)', async () => {
    // A bus that joined mid-answer: its buffer starts at seq 2.
    const f = await fixture({
      source: (hub) => ({
        subscribe: (runId, listener) => hub.subscribe(runId, listener),
        liveDeltas: (runId) => hub.liveDeltas(runId).filter((d) => d.seq !== 1),
      }),
    });
    const run = await runWithText(f);
    const follower = Follower.fromSnapshot(await f.store.getSnapshot('run-1'));
    const reader = await f.events('run-1', { after: follower.cursor });
    run.delta('!'); // 4:3 is not sent either: the client could not apply it
    await run.checkpoint(); // 5
    run.delta('?'); // 5:1
    await follow(reader, follower, 2);
    expect(follower.log).toEqual(['r5', 'd5.1']);
    expect(follower.text).toBe('Hello, world!?');
    await reader.cancel();
  });
});

describe('events: reset', () => {
  async function expectReset(reader: SseReader, reason: RegExp) {
    const message = await reader.nextMessage();
    expect(message?.event).toBe('reset');
    expect(message?.id).toBeNull();
    expect(JSON.parse(message!.data)).toEqual({
      type: 'reset',
      runId: 'run-1',
      reason: expect.stringMatching(reason),
    });
    expect(await reader.next()).toBeNull();
  }

  it('resets when the cursor names a delta the buffer does not hold', async () => {
    const f = await fixture();
    await runWithText(f);
    await expectReset(await f.events('run-1', { cursor: '4:4:3' }), /no longer buffered/);
    expect(f.hub.listenerCount('run-1')).toBe(0);
  });

  it('resets when the buffered deltas are gone (execution ended in this process)', async () => {
    const f = await fixture();
    await runWithText(f);
    f.hub.endRun('run-1');
    await expectReset(await f.events('run-1', { cursor: '4:4:2' }), /no longer buffered/);
  });

  it('resets when the cursor revision is newer than the run', async () => {
    const f = await fixture();
    await runWithText(f);
    await expectReset(await f.events('run-1', { after: '9' }), /newer than the run's revision 4/);
  });

  it('resets when the cursor builds on a checkpoint the run does not have', async () => {
    const f = await fixture();
    const run = await runWithText(f);
    await run.endOperation(); // 5, the checkpoint stays at 4
    await expectReset(await f.events('run-1', { after: '5:5:1' }), /checkpoint 5/);
  });

  it('resets live when a missed delta is no longer buffered', async () => {
    const f = await fixture({
      source: (hub) => ({
        subscribe: (runId, listener) =>
          hub.subscribe(runId, (e) => {
            if (!(e.type === 'run-delta' && e.seq === 3)) listener(e);
          }),
        liveDeltas: (runId) => hub.liveDeltas(runId).filter((d) => d.seq !== 3),
      }),
    });
    const run = await runWithText(f);
    const reader = await f.events('run-1', { cursor: '4:4:2' });
    run.delta('!');
    run.delta('?');
    await expectReset(reader, /live deltas 3\.\.3 on checkpoint 4/);
  });
});

describe('events: terminal runs', () => {
  it('ends after the terminal event of a run that ends while streaming', async () => {
    const f = await fixture();
    const run = await runWithText(f);
    const reader = await f.events('run-1', { after: '4' });
    await run.endOperation();
    await run.checkpoint();
    await run.complete(); // 7
    const ids = (await reader.rest()).map((m) => m.id);
    expect(ids).toEqual(['4:4:1', '4:4:2', '5:4:2', '6', '7']);
    expect(f.hub.listenerCount('run-1')).toBe(0);
  });

  it('replays up to the terminal revision of an ended run, then ends', async () => {
    const f = await fixture();
    const run = await runWithText(f);
    await run.endOperation();
    await run.complete(); // 6
    const follower = new Follower();
    follower.revision = 3;
    for (const message of await (await f.events('run-1', { after: '3' })).rest()) {
      follower.apply(message);
    }
    expect(follower.log).toEqual(['r4', 'r5', 'r6']);
    expect(follower.terminal).toBe(true);
  });

  it('ends at once for a client that already holds the terminal revision', async () => {
    const f = await fixture();
    const run = await runWithText(f);
    await run.endOperation();
    await run.complete();
    // Even with a delta cursor whose buffer is gone: a terminal run has nothing more to stream,
    // and 204 is what stops a native EventSource from reconnecting.
    const response = await fetch(f.url('/runs/run-1/events'), {
      headers: { 'Last-Event-ID': '6:4:2' },
    });
    expect(response.status).toBe(204);
    expect(f.hub.listenerCount('run-1')).toBe(0);
  });
});

describe('events: heartbeat and release', () => {
  it('sends ": ping" on an idle stream', async () => {
    const f = await fixture({ heartbeatMs: 20 });
    await ScriptedRun.start(f, 'run-1');
    const reader = await f.events('run-1', { after: '2' });
    expect(await reader.next()).toEqual({ kind: 'comment', text: 'open' });
    expect(await reader.next()).toEqual({ kind: 'comment', text: 'ping' });
    expect(await reader.next()).toEqual({ kind: 'comment', text: 'ping' });
    await reader.cancel();
  });

  it('releases the subscription when the client disconnects', async () => {
    const f = await fixture();
    const run = await runWithText(f);
    const abort = new AbortController();
    const reader = await f.events('run-1', { after: '4', signal: abort.signal });
    await reader.nextMessage();
    expect(f.hub.listenerCount('run-1')).toBe(1);
    abort.abort();
    await vi.waitFor(() => expect(f.hub.listenerCount('run-1')).toBe(0));
    // Publishing after the disconnect reaches nobody and breaks nothing.
    run.delta('late');
    await run.endOperation();
  });

  it('releases every subscription of many clients that come and go', async () => {
    const f = await fixture();
    const run = await runWithText(f);
    const readers = await Promise.all(
      Array.from({ length: 20 }, () => f.events('run-1', { after: '1' })),
    );
    expect(f.hub.listenerCount('run-1')).toBe(20);
    await Promise.all(readers.slice(0, 10).map((reader) => reader.cancel()));
    await vi.waitFor(() => expect(f.hub.listenerCount('run-1')).toBe(10));
    await run.endOperation();
    await run.complete();
    await Promise.all(readers.slice(10).map((reader) => reader.rest()));
    expect(f.hub.listenerCount('run-1')).toBe(0);
  });
});

/** The handlers called directly (no HTTP), with a stream reader that records every chunk. */
async function direct(options: Partial<RunHandlersOptions> = {}) {
  const hub = new RunEventHub();
  const store = createAgentRuntimeStore(publishingDriver(createMemoryDriver(), hub).driver);
  const run = await ScriptedRun.start({ store, hub }, 'run-1');
  const handlers = createRunHandlers({ store, runtime: hub, authorize: 'public', ...options });
  const response = await handlers.events(
    new Request('http://test/runs/run-1/events?after=2'),
    'run-1',
  );
  return { hub, run, response };
}

describe('events: heartbeat timing (fake timers)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('pings after each full idle interval, not while events flow', async () => {
    vi.useFakeTimers();
    const { run, response } = await direct({ heartbeatMs: 15_000 });
    const chunks: string[] = [];
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    void (async () => {
      for (let r = await reader.read(); !r.done; r = await reader.read()) {
        chunks.push(decoder.decode(r.value));
      }
    })();

    await vi.advanceTimersByTimeAsync(0);
    expect(chunks.splice(0)).toEqual([': open\n\n']); // at once, not a heartbeat
    await vi.advanceTimersByTimeAsync(14_999);
    expect(chunks).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(chunks).toEqual([': ping\n\n']);
    await vi.advanceTimersByTimeAsync(5_000); // 20 s
    run.delta('x');
    await vi.advanceTimersByTimeAsync(10_000); // 30 s: the stream was busy
    expect(chunks).toHaveLength(2);
    expect(chunks[1]).toMatch(/^event: run-delta\nid: 2:0:1\n/);
    await vi.advanceTimersByTimeAsync(15_000); // 45 s: idle again
    expect(chunks.slice(2)).toEqual([': ping\n\n']);
    await reader.cancel();
  });
});

describe('events: a client that stops reading', () => {
  it('is dropped instead of buffered without bound, and its subscription released', async () => {
    const { hub, run, response } = await direct({ maxQueuedBytes: 16 * 1024 });
    await new Promise((resolve) => setImmediate(resolve)); // catch-up done, live
    expect(hub.listenerCount('run-1')).toBe(1);
    for (let i = 0; i < 2_000; i++) run.delta('y'.repeat(100));
    expect(hub.listenerCount('run-1')).toBe(0);
    await expect(response.body!.getReader().read()).rejects.toThrow(/not reading/);
  });
});
