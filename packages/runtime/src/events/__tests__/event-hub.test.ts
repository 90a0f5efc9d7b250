import type { RunEvent } from '@runlight/protocol';
import { appendEvent, checkpointEvent, statusEvent, textDelta } from '@runlight/test-utils';
import { describe, expect, it } from 'vitest';
import { RunEventHub } from '../event-hub';

describe('RunEventHub live-delta buffer', () => {
  it('keeps the deltas since the last assistant write across a renewed lease, drops them on an append', () => {
    const hub = new RunEventHub();
    hub.publish(textDelta(4, 1, 'a'));
    hub.publish({ ...statusEvent(5, 'running'), change: 'lease-renewed' });
    expect(hub.liveDeltas('run-1').map((delta) => delta.seq)).toEqual([1]);
    hub.subscribe('run-1', () => {});
    hub.publish(appendEvent(6, 4, 'a'));
    expect(hub.liveDeltas('run-1')).toEqual([]);
  });

  it('a takeover drops the dead owner’s deltas and refuses its later ones; the new owner’s start on its own write', () => {
    const hub = new RunEventHub();
    const delivered: RunEvent[] = [];
    const a = (seq: number, text: string) => ({ ...textDelta(6, seq, text), fencingToken: 1 });
    hub.subscribe('run-1', (event) => delivered.push(event));
    hub.publish(statusEvent(2, 'running'));
    hub.publish(appendEvent(6, 4, 'a'));
    hub.publish(a(1, 'lost '));
    hub.publish(a(2, 'text '));
    // Worker B acquires the expired run (a new fencing token): a reconnect replays nothing.
    hub.publish({ ...statusEvent(7, 'running'), owner: 'worker-b', fencingToken: 2 });
    expect(hub.liveDeltas('run-1')).toEqual([]);
    // A paused (not dead) worker A publishes on: neither buffered nor delivered.
    delivered.length = 0;
    hub.publish(a(3, 'zombie '));
    hub.publish(a(1, 'zombie '));
    expect(hub.liveDeltas('run-1')).toEqual([]);
    expect(delivered).toEqual([]);
    // B's first write, then its deltas numbered on it.
    hub.publish(checkpointEvent(8, { id: 'msg-1', role: 'assistant', parts: [] }));
    hub.publish({ ...textDelta(8, 1, 'new '), fencingToken: 2 });
    hub.publish(a(4, 'zombie '));
    hub.publish({ ...textDelta(8, 2, 'zombie '), fencingToken: 1 });
    expect(hub.liveDeltas('run-1').map((d) => [d.baseRevision, d.seq])).toEqual([[8, 1]]);
  });

  it('a channel that joins after the takeover learns the owner from its deltas', () => {
    const hub = new RunEventHub();
    hub.publish({ ...textDelta(8, 1, 'new '), fencingToken: 2 });
    hub.publish({ ...textDelta(8, 2, 'zombie '), fencingToken: 1 });
    expect(hub.liveDeltas('run-1').map((d) => d.seq)).toEqual([1]);
  });

  it('a delta on an older base never replaces the buffer of a newer one', () => {
    const hub = new RunEventHub();
    hub.publish(textDelta(6, 1, 'a'));
    hub.publish(textDelta(4, 2, 'stale'));
    expect(hub.liveDeltas('run-1').map((d) => [d.baseRevision, d.seq])).toEqual([[6, 1]]);
  });

  it('the first acquisition (fencing token 1) and a renewed lease keep the base open', () => {
    const hub = new RunEventHub();
    hub.subscribe('run-1', () => {});
    hub.publish(statusEvent(2, 'running'));
    hub.publish(textDelta(0, 1, 'a'));
    expect(hub.liveDeltas('run-1')).toHaveLength(1);
  });

  it('keeps a delta that overtook its own write (over the PostgreSQL bus)', () => {
    const hub = new RunEventHub();
    hub.subscribe('run-1', () => {});
    hub.publish(appendEvent(6, 4, 'a'));
    hub.publish(textDelta(7, 1, 'b'));
    hub.publish(appendEvent(7, 6, 'x'));
    expect(hub.liveDeltas('run-1').map((d) => [d.baseRevision, d.seq])).toEqual([[7, 1]]);
  });
});
