import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_EVENT_BYTES } from '../streams/sse-event-size';
import { createHttpFixture, lossySource, ScriptedRun } from './http-test-kit';

const KiB = 1024;
const fixtures: { close: () => Promise<void> }[] = [];
afterEach(async () => {
  for (const fixture of fixtures.splice(0)) await fixture.close();
});

async function fixture(maxEventBytes: number) {
  const http = await createHttpFixture({ maxEventBytes });
  fixtures.push(http);
  const run = await ScriptedRun.start(http, 'run-1');
  return { http, run };
}

describe('maxEventBytes: a large event travels as a reference (issue 22 item 4)', () => {
  it('sends a durable event above the limit as an event-ref the client fetches, in its place', async () => {
    const { http, run } = await fixture(16 * KiB);
    await run.startOperation();
    run.text = 'y'.repeat(64 * KiB);
    await run.checkpoint(); // one assistant-checkpoint of ≈ 64 KiB
    await run.endOperation();
    await run.complete();

    const messages = await (await http.events('run-1')).rest();
    expect(messages.map((message) => message.event)).toEqual([
      'run-status', // created
      'run-status', // acquired
      'run-operation',
      'event-ref',
      'run-operation',
      'run-status', // completed
    ]);
    const ref = messages[3]!;
    // The id is the cursor after the event: the client moves past it once it applied it.
    expect(ref.id).toBe('4');
    expect(JSON.parse(ref.data)).toMatchObject({
      type: 'event-ref',
      runId: 'run-1',
      revision: 4,
      eventType: 'assistant-checkpoint',
    });
    expect(JSON.parse(ref.data).bytes).toBeGreaterThan(64 * KiB);
    // No message on the stream is above the limit.
    for (const message of messages) expect(message.data.length).toBeLessThan(16 * KiB);

    const response = await fetch(http.url('/runs/run-1/events/4'));
    expect(response.status).toBe(200);
    const event = (await response.json()) as { type: string; revision: number; runId: string };
    expect(event).toMatchObject({ type: 'assistant-checkpoint', revision: 4, runId: 'run-1' });
    expect(event).toEqual((await http.store.readEvents('run-1', { afterRevision: 3 }))[0]);
  });

  it('answers the event route with typed errors', async () => {
    const { http } = await fixture(16 * KiB);
    const code = async (path: string) => {
      const response = await fetch(http.url(path));
      return [response.status, ((await response.json()) as { error: { code: string } }).error.code];
    };
    expect(await code('/runs/run-1/events/0')).toEqual([400, 'bad_revision']);
    expect(await code('/runs/run-1/events/01')).toEqual([400, 'bad_revision']);
    expect(await code('/runs/run-1/events/99999999999999999')).toEqual([400, 'bad_revision']);
    expect(await code('/runs/run-1/events/99')).toEqual([404, 'event_not_found']);
    expect(await code('/runs/nope/events/1')).toEqual([404, 'run_not_found']);
  });

  it('does not send a live delta above the limit, nor any later delta on that checkpoint', async () => {
    const { http, run } = await fixture(16 * KiB);
    await run.startOperation();
    const reader = await http.events('run-1', { after: '3' });
    // The stream is live once it answered; the deltas follow.
    run.delta('small ');
    run.delta('z'.repeat(32 * KiB));
    run.delta('after ');
    await run.checkpoint(); // holds all of it: sent as a reference
    run.delta('next');
    await run.endOperation();
    await run.complete();
    const messages = await reader.rest();
    const events = messages.map((message) => message.event);
    expect(events).toEqual(['run-delta', 'event-ref', 'run-delta', 'run-operation', 'run-status']);
    expect(JSON.parse(messages[0]!.data)).toMatchObject({ seq: 1 });
    expect(messages[0]!.id).toBe('3:0:1');
    expect(JSON.parse(messages[2]!.data)).toMatchObject({ seq: 1, baseRevision: 4 });
  });

  it('sends no delta past a too-large one when it fills a hole from the live buffer', async () => {
    const http = await createHttpFixture({
      maxEventBytes: 16 * KiB,
      // The listener misses the large delta (a lost notification); the live buffer holds it.
      source: (hub) => lossySource(hub, (event) => event.type === 'run-delta' && event.seq === 2),
    });
    fixtures.push(http);
    const run = await ScriptedRun.start(http, 'run-1');
    await run.startOperation();
    const reader = await http.events('run-1', { after: '3' });
    run.delta('small ');
    run.delta('z'.repeat(32 * KiB));
    run.delta('after '); // seq 3: fills seq 2 from the buffer — too large — so neither is sent
    await run.checkpoint();
    await run.endOperation();
    await run.complete();
    const messages = await reader.rest();
    expect(messages.map((message) => message.event)).toEqual([
      'run-delta',
      'event-ref',
      'run-operation',
      'run-status',
    ]);
  });

  it('defaults to 1 MiB, well under the 8 MiB per-client cap', () => {
    expect(DEFAULT_MAX_EVENT_BYTES).toBe(1024 * 1024);
  });
});
