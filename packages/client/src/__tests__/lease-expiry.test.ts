import type { RunStatusEvent } from '@runlight/protocol';
import {
  approvalMessage,
  at,
  checkpoint,
  modelRequestOperation,
  RUN_ID,
  snapshot,
} from '@runlight/test-utils';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { watchLeaseExpiry } from '../connection/watch-lease-expiry';
import { applyEvent } from '../merge/apply-event';
import { mergeSnapshot } from '../merge/merge-snapshot';
import { initialRunState, type RunState } from '../merge/run-state';
import { selectActivity, selectLeaseExpiry } from '../select/select-activity';

/** The client's clock runs 90 s behind the server's; the snapshot's `serverTime` says so. */
const SKEW_MS = 90_000;
const LEASE_EXPIRES_AT = at(30);
const streaming = modelRequestOperation('first-output', { firstOutputAt: at(7) });

/** A tiny store: the state and its subscribers, like `RunStore`, without a connection. */
function holder(initial: RunState) {
  let state = initial;
  const listeners = new Set<() => void>();
  return {
    getState: () => state,
    subscribe(listener: () => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    set(next: RunState) {
      state = next;
      for (const listener of listeners) listener();
    },
  };
}

const takenOver: RunStatusEvent = {
  type: 'run-status',
  runId: RUN_ID,
  revision: 6,
  at: at(31),
  leaseExpiresAt: at(61),
  change: 'acquired',
  status: 'running',
  owner: 'worker-b',
  fencingToken: 2,
  failure: null,
};

describe('stalled: the activity of a run whose owner stopped responding', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    // Client time = server time − SKEW_MS; start 10 s before the lease expires (server clock).
    vi.setSystemTime(Date.parse(LEASE_EXPIRES_AT) - 10_000 - SKEW_MS);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('turns stalled exactly when the lease expires on the server clock, and back on the new owner’s first event', () => {
    const store = holder(
      mergeSnapshot(
        initialRunState(RUN_ID),
        snapshot(5, { lastOperation: streaming, leaseExpiresAt: LEASE_EXPIRES_AT }),
        { clockOffsetMs: SKEW_MS },
      ),
    );
    const seen: string[] = [];
    const stop = watchLeaseExpiry(store, () => seen.push(selectActivity(store.getState()).kind));
    expect(selectLeaseExpiry(store.getState())).toBe(Date.parse(LEASE_EXPIRES_AT) - SKEW_MS);
    expect(selectActivity(store.getState()).kind).toBe('streaming');

    vi.advanceTimersByTime(9_999);
    expect(seen).toEqual([]);
    expect(selectActivity(store.getState()).kind).toBe('streaming');
    vi.advanceTimersByTime(1); // the lease expires now, on the server's clock
    expect(seen).toEqual(['stalled']);
    const stalled = selectActivity(store.getState());
    expect(stalled).toEqual({
      kind: 'stalled',
      since: LEASE_EXPIRES_AT,
      operation: streaming,
      interrupted: { kind: 'streaming', since: at(7), operation: streaming },
    });
    // Stable while nothing changes; elapsed time counts from the expiry.
    expect(selectActivity(store.getState())).toBe(stalled);
    expect(selectActivity(store.getState(), Date.now() + 2_000).elapsedMs).toBe(2_000);

    // The recoverer's acquisition carries its own, later lease: the real activity is back.
    store.set(applyEvent(store.getState(), takenOver));
    expect(selectActivity(store.getState())).toMatchObject({
      kind: 'streaming',
      operation: streaming,
    });
    vi.advanceTimersByTime(30_999); // worker-b's lease runs to at(61)
    expect(seen).toEqual(['stalled']);
    vi.advanceTimersByTime(1);
    expect(seen).toEqual(['stalled', 'stalled']); // worker-b went silent too
    stop();
  });

  it('schedules one timer, not a poll, and none without a lease', () => {
    const store = holder(
      mergeSnapshot(
        initialRunState(RUN_ID),
        snapshot(5, { lastOperation: streaming, leaseExpiresAt: LEASE_EXPIRES_AT }),
        { clockOffsetMs: SKEW_MS },
      ),
    );
    const onExpire = vi.fn();
    const stop = watchLeaseExpiry(store, onExpire);
    expect(vi.getTimerCount()).toBe(1);
    // A delta-like change of state that keeps the lease keeps the same timer.
    store.set({ ...store.getState() });
    expect(vi.getTimerCount()).toBe(1);
    store.set(
      mergeSnapshot(initialRunState(RUN_ID), snapshot(5, { lastOperation: streaming }), {
        clockOffsetMs: SKEW_MS,
      }),
    );
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(60_000);
    expect(onExpire).not.toHaveBeenCalled();
    stop();
  });

  it('is never stalled while awaiting approval, nor once the run ended', () => {
    const later = Date.parse(LEASE_EXPIRES_AT) + 60_000 - SKEW_MS;
    const paused = mergeSnapshot(
      initialRunState(RUN_ID),
      snapshot(
        5,
        {
          lastOperation: modelRequestOperation('completed', { endedAt: at(9) }),
          leaseExpiresAt: LEASE_EXPIRES_AT, // a record paused before leases were released
        },
        checkpoint(4, approvalMessage),
      ),
      { clockOffsetMs: SKEW_MS },
    );
    expect(selectActivity(paused, later).kind).toBe('awaiting-approval');
    expect(selectLeaseExpiry(paused)).toBeNull();
    const ended = mergeSnapshot(
      initialRunState(RUN_ID),
      snapshot(5, { status: 'completed', leaseExpiresAt: LEASE_EXPIRES_AT }),
    );
    expect(selectActivity(ended, later).kind).toBe('completed');
  });
});
