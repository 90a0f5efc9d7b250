import { modelRequest } from '@runlight/test-utils';
import { describe, expect, it } from 'vitest';
import { FencingError } from '../../errors/fencing-error';
import { InvalidTransitionError } from '../../errors/invalid-transition-error';
import {
  reduceAcquireRun,
  reduceCreateRun,
  reduceRecordRunOperation,
  reduceReleaseLease,
} from '../log/reducer';
import { type StoredRun, StoredRunSchema } from '../log/stored-run';

const NOW = new Date('2026-12-02T12:00:10.000Z');
const at = (ms: number) => new Date(NOW.getTime() + ms);
const guardOf = (record: StoredRun) => ({
  owner: record.run.owner!,
  fencingToken: record.run.fencingToken,
  expectedRevision: record.run.revision,
});

function acquiredBy(owner: string): StoredRun {
  const created = reduceCreateRun(null, { runId: 'run-1' }, NOW).record;
  return reduceAcquireRun(created, { owner, leaseMs: 1_000 }, NOW).record;
}

describe('takeovers (the recovery bookkeeping)', () => {
  it('counts an acquisition that replaces an expired lease, and only that', () => {
    const record = acquiredBy('owner-a');
    expect(record.takeovers).toBe(0); // a queued run acquired is no takeover
    // The same owner re-acquiring its live lease is no takeover either.
    const again = reduceAcquireRun(record, { owner: 'owner-a', leaseMs: 1_000 }, at(500));
    expect(again.record.takeovers).toBe(0);
    const taken = reduceAcquireRun(record, { owner: 'owner-b', leaseMs: 1_000 }, at(1_000));
    expect(taken.record.takeovers).toBe(1);
    const twice = reduceAcquireRun(taken.record, { owner: 'owner-c', leaseMs: 1_000 }, at(2_500));
    expect(twice.record.takeovers).toBe(2);
  });

  it('a takeover needs an expired lease: a live one is lease-held, a released one run-not-leased', () => {
    const record = acquiredBy('owner-a');
    const input = { owner: 'owner-a', leaseMs: 1_000, takeover: true };
    // Not even its own owner takes over a live lease (that is the running execution).
    expect(() => reduceAcquireRun(record, input, at(999))).toThrow(FencingError);
    const released = reduceReleaseLease(record, guardOf(record), at(10)).record;
    expect(released.lease).toBeNull();
    expect(released.run.leaseExpiresAt).toBeNull();
    expect(() => reduceAcquireRun(released, input, at(5_000))).toThrow(
      expect.objectContaining({ rule: 'run-not-leased' }),
    );
    expect(() => reduceAcquireRun(released, input, at(5_000))).toThrow(InvalidTransitionError);
    // The paused run is acquired by whoever resumes it, at once and without counting.
    const resumed = reduceAcquireRun(released, { owner: 'owner-b', leaseMs: 1_000 }, at(20));
    expect(resumed.record).toMatchObject({ takeovers: 0, run: { owner: 'owner-b' } });
  });

  it('a released lease stays released through later writes of its owner', () => {
    const record = acquiredBy('owner-a');
    const released = reduceReleaseLease(record, guardOf(record), at(10));
    expect(released.event).toMatchObject({ change: 'lease-released', leaseExpiresAt: null });
    const next = reduceRecordRunOperation(
      released.record,
      guardOf(released.record),
      modelRequest(0),
      at(20),
    );
    expect(next.record.lease).toBeNull();
    expect(next.event.leaseExpiresAt).toBeNull();
  });

  it('reads a record stored before the count existed as never taken over', () => {
    const { takeovers: _takeovers, ...legacy } = acquiredBy('owner-a');
    expect(StoredRunSchema.parse(legacy).takeovers).toBe(0);
  });
});
