import type { RunEvent } from '@runlight/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEventListener } from '../../events/event-hub';
import { OwnedRun } from '../../store/owned-run';
import { createHttpFixture, ScriptedRun } from './http-test-kit';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/**
 * Issue 21 item 7 at the SSE stream: an acquisition ends the client's delta cursor, and a delta
 * of the previous acquisition (an owner that was paused, not dead, publishing on after the
 * takeover) is never sent — even from a source that does not filter it as the hub does.
 */
describe('events: a takeover on the stream', () => {
  it('sends the acquisition without a delta cursor, then only the new owner’s deltas', async () => {
    const raw = new Set<RunEventListener>();
    const f = await createHttpFixture({
      source: (hub) => ({
        subscribe(runId, listener) {
          raw.add(listener);
          const unsubscribe = hub.subscribe(runId, listener);
          return () => {
            raw.delete(listener);
            unsubscribe();
          };
        },
        liveDeltas: (runId) => hub.liveDeltas(runId),
      }),
    });
    cleanups.push(f.close);
    const run = await ScriptedRun.start(f, 'run-1'); // 1, 2 (token 1)
    await run.startOperation(); // 3
    run.delta('Hel');
    await run.checkpoint(); // 4
    const reader = await f.events('run-1', { after: '4' });
    const a = (seq: number, text: string): RunEvent => ({
      type: 'run-delta',
      runId: 'run-1',
      baseRevision: 4,
      seq,
      fencingToken: 1,
      chunk: { type: 'text-delta', id: 'text-1', delta: text },
    });
    f.hub.publish(a(1, 'lo, lost'));
    expect((await reader.nextMessage())?.id).toBe('4:4:1');

    // A new acquisition (token 2), then A publishes on: straight to the stream's listeners.
    const acquired = await f.store.acquireRun('run-1', { owner: 'worker-a', leaseMs: 60_000 });
    expect(acquired.fencingToken).toBe(2);
    for (const listener of [...raw]) listener(a(2, ' ZOMBIE'));
    const b = new OwnedRun(f.store, acquired);
    const rebased = await b.saveAssistantCheckpoint({
      id: 'assistant-1',
      role: 'assistant',
      parts: [{ type: 'text', text: 'Hel' }],
    }); // 6
    for (const listener of [...raw]) listener(a(3, ' ZOMBIE'));
    f.hub.publish({
      type: 'run-delta',
      runId: 'run-1',
      baseRevision: rebased.revision,
      seq: 1,
      fencingToken: 2,
      chunk: { type: 'text-delta', id: 'text-2', delta: 'lo from B' },
    });
    const ids: (string | null)[] = [];
    for (let i = 0; i < 3; i++) ids.push((await reader.nextMessage())?.id ?? null);
    // The acquisition carries "5" (no delta cursor), then B's write and B's delta.
    expect(ids).toEqual(['5', '6', '6:6:1']);
    await reader.cancel();
  });
});
