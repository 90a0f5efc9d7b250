import type { RunEvent } from '@runlight/protocol';
import { scriptedModel } from '@runlight/runtime/testing';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { readEventStream, startInstance } from './instance';
import type { TestDatabase } from './test-databases';

const LONG_WORD = 'ü'.repeat(6_000); // one 12 kB delta: too large for a NOTIFY payload

export function twoInstanceTests(open: () => Promise<TestDatabase>) {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await open();
  });
  afterAll(async () => {
    await database?.close();
  });

  it('lets an SSE client on instance B follow, live, a run executing on instance A', async () => {
    const schema = await database.freshSchema();
    const a = await startInstance(database.client, schema, { owner: 'instance-a' });
    const b = await startInstance(database.client, schema, { owner: 'instance-b' });
    try {
      const runId = 'two-instances-1';
      await a.store.createRun({ runId });
      const seenOnA: RunEvent[] = [];
      a.runtime.subscribe(runId, (event) => seenOnA.push(event));
      // B's client connects before A starts: everything after `created` reaches it live.
      const followed = readEventStream(`${b.origin}/runs/${runId}/events`);
      await vi.waitFor(() => expect(b.bus.listenerCount(runId)).toBe(1));
      const words = `Streaming from instance A ${LONG_WORD} to a client of instance B, word by word.`;
      const model = scriptedModel([{ firstTokenMs: 20, tokenMs: 5, text: words }]);
      const run = await a.runtime.startRun({
        runId,
        model,
        messages: [{ role: 'user', content: 'Hi' }],
      }).done;
      expect(run.status).toBe('completed');

      const onB = (await followed).map((message) => message.event);
      const durableOnB = onB.filter((event) => event.type !== 'run-delta');
      // Every durable event, once, in revision order, equal to the event log.
      expect(durableOnB).toEqual(await b.store.readEvents(runId));
      expect(durableOnB.at(-1)).toMatchObject({ type: 'run-status', change: 'completed' });
      // Live deltas are stored nowhere: B could only have them from A through PostgreSQL.
      const deltasOnA = seenOnA.filter((event) => event.type === 'run-delta');
      const deltasOnB = onB.filter((event) => event.type === 'run-delta');
      expect(deltasOnB.length).toBeGreaterThan(10);
      expect(deltasOnB).toEqual(deltasOnA);
      const textOnB = deltasOnB
        .map((event) => (event.chunk.type === 'text-delta' ? event.chunk.delta : ''))
        .join('');
      expect(textOnB).toContain(LONG_WORD);
      // The snapshot B serves is the one A wrote.
      const snapshot = await (await fetch(`${b.origin}/runs/${runId}`)).json();
      expect(snapshot.run).toEqual(run);
      expect(snapshot.assistant.message.parts).toContainEqual(
        expect.objectContaining({ type: 'text', text: words }),
      );
      expect([...a.busErrors, ...b.busErrors]).toEqual([]);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('shows a client reloading on B mid-stream the text so far at once, from B’s delta buffer', async () => {
    const schema = await database.freshSchema();
    // No batched checkpoint: every text delta builds on the same checkpoint until the step ends.
    const a = await startInstance(database.client, schema, {
      owner: 'instance-a',
      checkpointEveryEvents: 1_000,
    });
    const b = await startInstance(database.client, schema, { owner: 'instance-b' });
    try {
      const runId = 'two-instances-reload';
      const publishedOnA: RunEvent[] = [];
      a.runtime.subscribe(runId, (event) => publishedOnA.push(event));
      const words = Array.from({ length: 40 }, (_, index) => `w${index}`).join(' ');
      const done = a.runtime.startRun({
        runId,
        model: scriptedModel([{ tokenMs: 25, text: words }]),
        messages: [{ role: 'user', content: 'Count' }],
      }).done;
      await vi.waitFor(() => expect(b.bus.liveDeltas(runId).length).toBeGreaterThanOrEqual(10), {
        timeout: 20_000,
        interval: 10,
      });
      // A reload: the snapshot, then the stream after its revision.
      const snapshot = await (await fetch(`${b.origin}/runs/${runId}`)).json();
      const stream = readEventStream(`${b.origin}/runs/${runId}/events?after=${snapshot.revision}`);
      expect((await done).status).toBe('completed');
      const base = snapshot.assistant?.revision ?? 0;
      const replayed = (await stream)
        .map((message) => message.event)
        .filter((event) => event.type === 'run-delta' && event.baseRevision === base);
      // From seq 1, though the client connected after at least ten deltas were published.
      expect(replayed).toEqual(
        publishedOnA.filter((event) => event.type === 'run-delta' && event.baseRevision === base),
      );
      expect(replayed[0]).toMatchObject({ seq: 1 });
    } finally {
      await a.close();
      await b.close();
    }
  });
}
