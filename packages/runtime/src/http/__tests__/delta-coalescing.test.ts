import { expandRunDeltaBatch, parseRunDeltaBatch, type RunDeltaEvent } from '@runlight/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpFixture, ScriptedRun, SseReader } from './http-test-kit';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** Handlers coalescing deltas for `windowMs`, and a run that is streaming (revision 3). */
async function streaming(windowMs: number) {
  const f = await createHttpFixture({ coalesceDeltasMs: windowMs });
  cleanups.push(f.close);
  const run = await ScriptedRun.start(f, 'run-1');
  await run.startOperation(); // 3
  const open = async (accept: string) => {
    const response = await fetch(f.url('/runs/run-1/events'), { headers: { accept } });
    const reader = new SseReader(response.body!);
    for (let revision = 1; revision <= 3; revision++) await reader.nextMessage();
    return reader;
  };
  return { f, run, open };
}

/** The deltas one message stands for. */
function deltasOf(message: { event: string; data: string }): RunDeltaEvent[] {
  return message.event === 'run-deltas'
    ? expandRunDeltaBatch(parseRunDeltaBatch(JSON.parse(message.data)))
    : [JSON.parse(message.data) as RunDeltaEvent];
}

describe('wire coalescing (coalesceDeltasMs, for a client that sent deltas=batched)', () => {
  it('sends the first delta of a part at once and the rest of a burst as one run-deltas message', async () => {
    const { run, open } = await streaming(10_000);
    const reader = await open('text/event-stream; deltas=batched');
    const first = run.delta('Hel');
    // Not delayed by the (long) window: it starts the part.
    const alone = await reader.nextMessage();
    expect(alone).toMatchObject({ event: 'run-delta', id: '3:0:1' });
    expect(deltasOf(alone!)).toEqual([first]);

    const burst = [run.delta('lo'), run.delta(' wor'), run.delta('ld')];
    // A durable event flushes what waits before it: order is kept, nothing waits 10 s.
    await run.endOperation(); // 4
    const batch = await reader.nextMessage();
    expect(batch).toMatchObject({ event: 'run-deltas', id: '3:0:4' });
    expect(deltasOf(batch!)).toEqual(burst);
    expect(await reader.nextMessage()).toMatchObject({ event: 'run-operation', id: '4:0:4' });
    await reader.cancel();
  });

  it('ends a window with one message holding every delta published meanwhile', async () => {
    const { run, open } = await streaming(30);
    const reader = await open('text/event-stream; deltas=batched');
    const published = [run.delta('a')];
    await reader.nextMessage();
    for (const word of ['b', 'c', 'd', 'e']) published.push(run.delta(word));
    const received = [...published.slice(0, 1)];
    while (received.length < published.length) {
      const message = await reader.nextMessage();
      received.push(...deltasOf(message!));
    }
    expect(received).toEqual(published);
    await reader.cancel();
  });

  it('gives the clients of a run the same messages (one shared batch)', async () => {
    const { run, open } = await streaming(10_000);
    const readers = [
      await open('text/event-stream; deltas=batched'),
      await open('text/event-stream; deltas=batched'),
    ];
    const published = [run.delta('a'), run.delta('b'), run.delta('c')];
    await run.endOperation();
    for (const reader of readers) {
      const messages = [await reader.nextMessage(), await reader.nextMessage()];
      expect(messages.map((m) => m?.event)).toEqual(['run-delta', 'run-deltas']);
      expect(messages.flatMap((m) => deltasOf(m!))).toEqual(published);
      await reader.cancel();
    }
  });

  it('sends a client that did not ask one run-delta message per delta (backward-safe)', async () => {
    const { run, open } = await streaming(10_000);
    const reader = await open('text/event-stream');
    const published = [run.delta('a'), run.delta('b'), run.delta('c')];
    const messages = [
      await reader.nextMessage(),
      await reader.nextMessage(),
      await reader.nextMessage(),
    ];
    expect(messages.map((m) => m?.event)).toEqual(['run-delta', 'run-delta', 'run-delta']);
    expect(messages.flatMap((m) => deltasOf(m!))).toEqual(published);
    await reader.cancel();
  });
});
