import type { DurableRunEvent } from '@runlight/protocol';
import { at, modelRequestOperation, operationEvent } from '@runlight/test-utils';
import { describe, expect, it } from 'vitest';
import type { RunlightClientOptions } from '../create-runlight-client';
import { applyEvent } from '../merge/apply-event';
import { HeldEvents } from '../merge/held-events';
import { mergeSnapshot } from '../merge/merge-snapshot';
import { initialRunState } from '../merge/run-state';
import { FakeServer, fakeClient, live, sse, startedRun, waitFor } from './fake-server';

const base = startedRun;

function setup(options: Partial<RunlightClientOptions> = {}) {
  const server = new FakeServer(base());
  const client = fakeClient(server, options);
  const store = client.run('run-1');
  const errors: string[] = [];
  const unsubscribe = store.subscribe(() => {
    const { error } = store.getState();
    if (error !== null && errors.at(-1) !== `${error.kind} ${error.field}`) {
      errors.push(`${error.kind} ${error.field}`);
    }
  });
  return { server, store, unsubscribe, errors };
}

const operation = (revision: number) =>
  operationEvent(revision, modelRequestOperation('started', { startedAt: at(-90) }));

/** Sends `chunk` until the client closes the connection or `limit` bytes went out. */
async function flood(
  connection: { send(text: string): void; closed: boolean },
  chunk: string,
  limit: number,
) {
  let sent = 0;
  while (!connection.closed && sent < limit) {
    connection.send(chunk);
    sent += new TextEncoder().encode(chunk).byteLength;
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  return sent;
}

describe('a hostile event stream', () => {
  it('refuses an event line that never ends at maxEventBytes, keeps the state, reconnects', async () => {
    const { server, store, unsubscribe } = setup({ limits: { maxEventBytes: 256 * 1024 } });
    await live(store);
    const before = store.getState().run;
    const first = server.last;
    first.send('data: ');
    const sent = await flood(first, 'x'.repeat(16 * 1024), 64 * 1024 * 1024);
    expect(first.closed).toBe(true);
    // Stopped at the cap plus at most a chunk or two in flight, not 64 MiB later.
    expect(sent).toBeLessThan(256 * 1024 + 64 * 1024);
    await waitFor(() =>
      expect(store.getState().error).toMatchObject({
        kind: 'limit-exceeded',
        field: 'maxEventBytes',
      }),
    );
    expect(store.getState().run).toBe(before);
    await waitFor(() => expect(server.connections).toHaveLength(2));
    unsubscribe();
  });

  it('refuses one huge event (its data lines end, the event never does) the same way', async () => {
    const { server, store, unsubscribe } = setup({ limits: { maxEventBytes: 1024 * 1024 } });
    await live(store);
    const first = server.last;
    first.send('event: run-operation\n');
    const sent = await flood(first, `data: ${'y'.repeat(64 * 1024)}\n`, 50 * 1024 * 1024);
    expect(first.closed).toBe(true);
    expect(sent).toBeLessThan(1024 * 1024 + 2 * 65 * 1024);
    await waitFor(() => expect(store.getState().error?.kind).toBe('limit-exceeded'));
    expect(store.getState().revision).toBe(5);
    unsubscribe();
  });

  it('accepts events up to the cap, however many: the count restarts after each event', async () => {
    const { server, store, unsubscribe } = setup({ limits: { maxEventBytes: 4 * 1024 } });
    await live(store);
    for (let revision = 6; revision < 200; revision++) server.last.send(sse(operation(revision)));
    await waitFor(() => expect(store.getState().revision).toBe(199));
    expect(store.getState().error).toBeNull();
    unsubscribe();
  });

  it('treats a revision at Number.MAX_SAFE_INTEGER as implausible: typed error and a reload, not a wait forever', async () => {
    const { server, store, unsubscribe, errors } = setup();
    await live(store);
    const loads = server.snapshotLoads;
    const huge = { ...operation(6), revision: Number.MAX_SAFE_INTEGER };
    server.last.send(sse(huge));
    await waitFor(() => expect(errors).toEqual(['implausible-revision revision']));
    expect(store.getState().pending.size).toBe(0);
    expect(store.getState().revision).toBe(5);
    // A reset: the snapshot is reloaded and the stream resumed from the state's revision.
    await waitFor(() => expect(server.connections).toHaveLength(2));
    expect(server.snapshotLoads).toBe(loads + 1);
    expect(server.last.lastEventId).toBe('5');
    unsubscribe();
  });

  it('bounds the held out-of-order events: past maxHeldEvents they are dropped and the snapshot reloaded', async () => {
    const { server, store, unsubscribe, errors } = setup({ limits: { maxHeldEvents: 50 } });
    await live(store);
    // Ascending with revision 6 missing: every one of them is held.
    let text = '';
    for (let revision = 7; revision < 107; revision++) text += sse(operation(revision));
    server.last.send(text);
    await waitFor(() => expect(errors).toEqual(['limit-exceeded maxHeldEvents']));
    expect(store.getState().pending.size).toBe(0);
    await waitFor(() => expect(server.connections).toHaveLength(2));
    unsubscribe();
  });

  it('reloads the snapshot for a gap at most once per backoff step, not once per network chunk', async () => {
    // The client's clock is the test's: it moves only when the test says a backoff step passed,
    // so the count of reloads depends on the rule, not on how fast the chunks went out.
    let clock = Date.now();
    const { server, store, unsubscribe } = setup({
      reconnect: { initialDelayMs: 1_000, maxDelayMs: 10_000 },
      limits: { maxHeldEvents: 100_000 },
      now: () => clock,
    });
    await live(store);
    const loads = server.snapshotLoads;
    // 100 events a chunk after a missing revision 6; the snapshot never bridges it.
    let next = 7;
    const sendChunks = async (chunks: number) => {
      for (let chunk = 0; chunk < chunks; chunk++) {
        let text = '';
        for (let i = 0; i < 100; i++) text += sse(operation(next++));
        server.last.send(text);
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
      await waitFor(() => expect(store.getState().pending.size).toBe(next - 7));
    };
    // The first chunk's gap reloads at once; the other 199 chunks arrive within that step.
    await sendChunks(200);
    await waitFor(() => expect(server.snapshotLoads - loads).toBe(1));
    await sendChunks(50);
    expect(server.snapshotLoads - loads).toBe(1);
    // One backoff step passes (1 s, half of it jittered with random 0.5): one more reload.
    clock += 750;
    await waitFor(() => expect(server.snapshotLoads - loads).toBe(2));
    // The next step is twice as long: chunks before it reload nothing.
    await sendChunks(50);
    expect(server.snapshotLoads - loads).toBe(2);
    expect(store.getState().connection).toBe('live');
    unsubscribe();
  });
});

describe('holding out-of-order events is O(log n) per event', () => {
  /**
   * The issue: 20,000 out-of-order events froze the page for 3.9 s (each one copied the held
   * list). What makes it O(log n) is the held tree's depth — the nodes an insertion copies —
   * so that is what is pinned here, for arrivals in every adversarial order; the time itself,
   * against applying the same events in order, is measured in `bench/apply-event.bench.ts`.
   */
  it.each([
    ['ascending', (i: number, count: number) => i + 1 + 0 * count],
    ['descending', (i: number, count: number) => count - 1 - i],
    ['interleaved', (i: number, count: number) => (i % 2 === 0 ? i / 2 + 1 : count - (i + 1) / 2)],
  ])(
    'holds 20,000 events after a missing one (%s) in a tree of logarithmic depth, then drains them all',
    (_order, position) => {
      const count = 20_000;
      const loaded = mergeSnapshot(initialRunState('run-1'), base());
      const events: DurableRunEvent[] = Array.from({ length: count }, (_, i) => operation(6 + i));
      let state = loaded;
      let deepest = 0;
      for (let i = 0; i < count - 1; i++) {
        state = applyEvent(state, events[position(i, count)]!); // all held: revision 6 is missing
        deepest = Math.max(deepest, state.pending.depth);
      }
      expect(state.pending.size).toBe(count - 1);
      expect(deepest).toBeLessThanOrEqual(Math.ceil(1.45 * Math.log2(count + 1)));
      state = applyEvent(state, events[0]!); // bridges the gap: everything drains, in order
      expect(state.revision).toBe(5 + count);
      expect(state.phase).toBe('synced');
      expect(state.pending.size).toBe(0);
    },
  );

  it('HeldEvents keeps a balanced tree: ordered iteration, duplicates are no-ops', () => {
    let held = HeldEvents.empty;
    const revisions = Array.from({ length: 1_000 }, (_, i) => ((i * 7919) % 1_000) + 10);
    for (const revision of revisions) held = held.insert(operation(revision));
    expect(held.size).toBe(1_000);
    expect(held.insert(operation(500))).toBe(held);
    expect(held.toArray().map((event) => event.revision)).toEqual(
      [...revisions].sort((a, b) => a - b),
    );
    expect(held.min?.revision).toBe(10);
    expect(held.withoutMin().min?.revision).toBe(11);
  });
});
