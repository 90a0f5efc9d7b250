import type { RunEvent, RunSnapshot } from '@runlight/protocol';
import {
  approvalMessage,
  at,
  checkpoint,
  checkpointEvent,
  modelRequestOperation,
  operationEvent,
  snapshot,
  textDelta,
  textMessage,
} from '@runlight/test-utils';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRunlightClient } from '../../create-runlight-client';
import { applyEvent } from '../../merge/apply-event';
import { mergeSnapshot } from '../../merge/merge-snapshot';
import { initialRunState, type RunState } from '../../merge/run-state';
import type { RunStore } from '../../run-store';
import { type Activity, selectActivity } from '../../select/select-activity';
import { activityEquals } from '../../status/activity-equals';
import { RunObserver } from '../run-observer';
import { connectionEquals, selectConnection } from '../select-connection';
import { selectOperation } from '../select-operation';

const started = modelRequestOperation('started', { startedAt: at(1) });
const streaming = modelRequestOperation('first-output', { startedAt: at(1), firstOutputAt: at(2) });
const completedStep = modelRequestOperation('completed', { endedAt: at(3) });

/**
 * A store whose server never answers (each request waits until aborted), so the test alone
 * moves its state, through `applySnapshot`; `requests` counts what its connection asked for.
 */
function hungStore(): { store: RunStore; requests: () => number } {
  let requests = 0;
  const fetch = (_input: RequestInfo | URL, init?: RequestInit) => {
    requests++;
    return new Promise<Response>((_resolve, reject) => {
      init?.signal?.addEventListener('abort', () => reject(init.signal?.reason));
    });
  };
  const client = createRunlightClient({ baseUrl: 'http://runlight.test/api', fetch });
  return { store: client.run('run-1'), requests: () => requests };
}

/** Lets the store's once-per-burst notification run. */
const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** A store without a connection, moved by the test one state at a time, like `RunStore`. */
function holder() {
  let state = initialRunState('run-1');
  const listeners = new Set<() => void>();
  const add = (listener: () => void) => {
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  };
  return {
    getState: () => state,
    subscribe: vi.fn(add),
    watch: vi.fn(add),
    move(step: Step) {
      const next = 'type' in step ? applyEvent(state, step) : mergeSnapshot(state, step);
      if (next === state) return;
      state = next;
      for (const listener of [...listeners]) listener();
    },
  };
}

/** A snapshot merged, or an event applied. */
type Step = RunSnapshot | RunEvent;

/**
 * The queryObserver.test way: every value a subscriber was told about, in order, while the
 * store goes through `steps`; and how often the selector ran.
 */
function seen<T>(
  select: (state: RunState) => T,
  isEqual: ((a: T, b: T) => boolean) | undefined,
  steps: readonly Step[],
): { values: T[]; selections: number } {
  const store = holder();
  let selections = 0;
  const observer = new RunObserver(store, {
    select: (state) => {
      selections++;
      return select(state);
    },
    isEqual,
  });
  const values: T[] = [];
  const stop = observer.subscribe(() => values.push(observer.getSnapshot()));
  for (const step of steps) store.move(step);
  stop();
  return { values, selections };
}

const kinds = (values: readonly Activity[]) => values.map((activity) => activity.kind);

afterEach(() => {
  vi.useRealTimers();
});

describe('RunObserver: what a subscriber sees', () => {
  it.each<[string, Step[], string[]]>([
    [
      'a run that starts, streams and pauses for approval',
      [
        snapshot(5, { lastOperation: started }),
        snapshot(6, { lastOperation: streaming }),
        snapshot(7, { lastOperation: completedStep }, checkpoint(7, approvalMessage)),
      ],
      ['waiting-for-model', 'streaming', 'awaiting-approval'],
    ],
    [
      'text that grows under one activity tells nobody',
      [
        snapshot(5, { lastOperation: streaming }, checkpoint(5, textMessage('He'))),
        textDelta(5, 1, 'llo'),
        checkpointEvent(6, textMessage('Hello there')),
        textDelta(6, 1, '!'),
        operationEvent(7, completedStep),
      ],
      ['streaming', 'working'],
    ],
    [
      'an older snapshot changes nothing',
      [snapshot(6, { lastOperation: streaming }), snapshot(5, { lastOperation: started })],
      ['streaming'],
    ],
    [
      'a finished run',
      [
        snapshot(5, { lastOperation: streaming }),
        snapshot(6, { status: 'completed', owner: null, lastOperation: completedStep }),
      ],
      ['streaming', 'completed'],
    ],
  ])('activity: %s', (_name, steps, expected) => {
    const { values } = seen(selectActivity, activityEquals, steps);
    expect(kinds(values)).toEqual(expected);
  });

  it('without an equality, a new object is told; the same one is not (the operation slice)', () => {
    const { values } = seen(selectOperation, undefined, [
      snapshot(5, { lastOperation: started }),
      textDelta(5, 1, 'a'),
      operationEvent(6, streaming),
    ]);
    expect(values).toEqual([started, streaming]);
  });

  it('an equal selection keeps the first reference (the connection slice)', () => {
    const store = holder();
    const observer = new RunObserver(store, {
      select: selectConnection,
      isEqual: connectionEquals,
    });
    const first = observer.getSnapshot();
    store.move(snapshot(5));
    expect(observer.getSnapshot()).toBe(first);
    expect(observer.getSnapshot()).toEqual({ state: 'idle', error: null });
  });

  it('selects once per store state, however often it is read', () => {
    const { values, selections } = seen(selectActivity, activityEquals, [
      snapshot(5, { lastOperation: streaming }, checkpoint(5, textMessage('He'))),
      textDelta(5, 1, 'llo'),
    ]);
    // The state on attach, the snapshot's and the delta's; each listener's read is memoised.
    expect(values).toHaveLength(1);
    expect(selections).toBe(3);
  });
});

describe('RunObserver: subscription', () => {
  it('an inline selector given on every "render" never subscribes the store again', () => {
    const { store } = hungStore();
    const subscribe = vi.spyOn(store, 'subscribe');
    const observer = new RunObserver(store, { select: (state) => state.run?.status ?? null });
    const stop = observer.subscribe(() => {});
    for (let render = 0; render < 10; render++) {
      observer.setOptions({ select: (state) => state.run?.status ?? null });
      observer.getSnapshot();
    }
    expect(subscribe).toHaveBeenCalledTimes(1);
    stop();
  });

  it('a new selector selects again, and keeps the old reference when equal', () => {
    const { store } = hungStore();
    store.applySnapshot(snapshot(5, { lastOperation: streaming }));
    const observer = new RunObserver(store, { select: selectActivity, isEqual: activityEquals });
    const first = observer.getSnapshot();
    observer.setOptions({ select: (state) => selectActivity(state), isEqual: activityEquals });
    expect(observer.getSnapshot()).toBe(first);
    observer.setOptions({
      select: (state) => ({ ...selectActivity(state) }),
      isEqual: () => false,
    });
    expect(observer.getSnapshot()).not.toBe(first);
  });

  it('many subscribers share one store subscription, released after the last', () => {
    const { store } = hungStore();
    const subscribe = vi.spyOn(store, 'subscribe');
    const observer = new RunObserver(store, { select: selectActivity });
    const stops = [observer.subscribe(() => {}), observer.subscribe(() => {})];
    expect(subscribe).toHaveBeenCalledTimes(1);
    stops[0]?.();
    const third = observer.subscribe(() => {});
    expect(subscribe).toHaveBeenCalledTimes(1);
    stops[1]?.();
    third();
    observer.subscribe(() => {})();
    expect(subscribe).toHaveBeenCalledTimes(2);
  });

  it('an active observer opens the connection; a passive one does not, and sees what others bring', async () => {
    const { store, requests } = hungStore();
    const passive = new RunObserver(store, { select: selectActivity, passive: true });
    const told: string[] = [];
    const stopPassive = passive.subscribe(() => told.push(passive.getSnapshot().kind));
    await flush();
    expect(requests()).toBe(0);
    expect(store.getState().connection).toBe('idle');

    store.applySnapshot(snapshot(5, { lastOperation: started }));
    await flush();
    expect(told).toEqual(['waiting-for-model']);

    const active = new RunObserver(store, { select: selectConnection, isEqual: connectionEquals });
    const stopActive = active.subscribe(() => {});
    await flush();
    expect(requests()).toBe(1);
    expect(store.getState().connection).not.toBe('idle');
    stopActive();
    stopPassive();
  });

  it('selects again when the lease expires, with no event (a stalled run)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    vi.setSystemTime(Date.parse(at(20)));
    const { store } = hungStore();
    // No serverTime: the clocks are taken to agree.
    store.applySnapshot(snapshot(5, { lastOperation: streaming, leaseExpiresAt: at(30) }));
    const observer = new RunObserver(store, { select: selectActivity, isEqual: activityEquals });
    const told: string[] = [];
    const stop = observer.subscribe(() => told.push(observer.getSnapshot().kind));
    await vi.advanceTimersByTimeAsync(9_999);
    expect(told).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(told).toEqual(['stalled']);
    stop();
  });
});
