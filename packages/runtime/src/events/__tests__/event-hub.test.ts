import { appendEvent, statusEvent, textDelta } from '@runlight/test-utils';
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
});
