import { describe, expect, it } from 'vitest';
import { OutageReport } from '../outage-report';
import { RedisBusOutageError } from '../redis-bus-outage-error';
import { RECONNECT_DELAY_CAP_MS, reconnectDelayMs } from '../redis-connection';

const summary = (error: unknown) => {
  if (!RedisBusOutageError.isInstance(error)) return String(error);
  const { phase, droppedDeltas, droppedPointers, failures } = error;
  return phase === 'started'
    ? `started (${String((error.cause as Error).message)})`
    : `ended: ${droppedDeltas} deltas, ${droppedPointers} pointers, ${failures} failures`;
};

describe('OutageReport', () => {
  it('reports an outage once when it starts and once when every side is up again, with its counts', () => {
    const reported: unknown[] = [];
    const outage = new OutageReport((error) => reported.push(error));
    outage.fail('reading', new Error('socket closed'));
    for (let index = 0; index < 1_000; index++) {
      outage.fail('sending', new Error('queue full'));
      outage.dropped(1, 0);
    }
    outage.dropped(0, 3);
    outage.up('reading');
    expect(reported.map(summary)).toEqual(['started (socket closed)']);
    outage.up('sending');
    expect(reported.map(summary)).toEqual([
      'started (socket closed)',
      'ended: 1000 deltas, 3 pointers, 1001 failures',
    ]);
    expect(outage.active).toBe(false);
    const ended = reported[1] as RedisBusOutageError;
    expect(ended.durationMs).toBeGreaterThanOrEqual(0);
    expect(ended.startedAt).toEqual((reported[0] as RedisBusOutageError).startedAt);
  });

  it('says nothing while every side is up, and starts afresh with the next outage', () => {
    const reported: unknown[] = [];
    const outage = new OutageReport((error) => reported.push(error));
    outage.up('sending');
    outage.up('reading');
    expect(reported).toEqual([]);
    outage.fail('sending', new Error('one'));
    outage.dropped(5, 0);
    outage.up('sending');
    outage.fail('sending', new Error('two'));
    outage.up('sending');
    expect(reported.map(summary)).toEqual([
      'started (one)',
      'ended: 5 deltas, 0 pointers, 1 failures',
      'started (two)',
      'ended: 0 deltas, 0 pointers, 1 failures',
    ]);
  });
});

describe('reconnectDelayMs', () => {
  it('backs off from 50 ms and never waits longer than the cap, so a process is back within ~1 s of Redis', () => {
    const delays = Array.from({ length: 40 }, (_, retries) => reconnectDelayMs(retries));
    expect(delays.slice(0, 5)).toEqual([50, 100, 200, 400, 800]);
    expect(Math.max(...delays)).toBe(RECONNECT_DELAY_CAP_MS);
    expect(RECONNECT_DELAY_CAP_MS).toBeLessThanOrEqual(1_000);
  });
});
