import type { RunOperationsPage } from '@runlight/protocol';
import {
  checkpointEvent,
  modelRequestOperation,
  operationEvent,
  RUN_ID,
  textMessage,
} from '@runlight/test-utils';
import { describe, expect, it } from 'vitest';
import {
  completeThrough,
  initialHistoryState,
  mergeHistoryPage,
  mergeLiveEvent,
  nextHistoryAfter,
} from '../history/run-history-state';

const op = (revision: number) =>
  operationEvent(revision, modelRequestOperation('started', { step: revision }));
const page = (
  operations: ReturnType<typeof op>[],
  revision: number,
  nextAfter: number | null = null,
): RunOperationsPage => ({
  runId: RUN_ID,
  operations,
  nextAfter,
  revision,
});

describe('history merge rules (SPEC.md H1–H4)', () => {
  it('H1: a page adds its operations and covers (after, revision]', () => {
    const state = mergeHistoryPage(initialHistoryState(RUN_ID), page([op(2), op(4)], 5), 0);
    expect(state.operations.map((e) => e.revision)).toEqual([2, 4]);
    expect(state.covered).toEqual([[1, 5]]);
    expect(completeThrough(state)).toBe(5);
  });

  it('H1: a page cut by its limit covers only up to nextAfter', () => {
    const state = mergeHistoryPage(initialHistoryState(RUN_ID), page([op(2)], 2, 2), 0);
    expect(state.covered).toEqual([[1, 2]]);
    expect(nextHistoryAfter(state, 7)).toBe(2);
  });

  it('H2: a live event covers its revision; a non-operation event adds no operation', () => {
    let state = mergeLiveEvent(initialHistoryState(RUN_ID), op(6));
    state = mergeLiveEvent(state, checkpointEvent(7, textMessage('hi')));
    expect(state.operations.map((e) => e.revision)).toEqual([6]);
    expect(state.covered).toEqual([[6, 7]]);
    expect(completeThrough(state)).toBe(0);
    expect(nextHistoryAfter(state, 7)).toBe(0);
  });

  it('H2: a duplicate (live or paged) returns the same state object', () => {
    const state = mergeHistoryPage(initialHistoryState(RUN_ID), page([op(2), op(4)], 5), 0);
    expect(mergeLiveEvent(state, op(4))).toBe(state);
    expect(mergeHistoryPage(state, page([op(2)], 3), 1)).toBe(state);
  });

  it('H2: live events before the page and the page after them merge in revision order, once', () => {
    let state = mergeLiveEvent(initialHistoryState(RUN_ID), op(5));
    state = mergeLiveEvent(state, op(6));
    state = mergeHistoryPage(state, page([op(2), op(5)], 5), 0);
    expect(state.operations.map((e) => e.revision)).toEqual([2, 5, 6]);
    expect(state.covered).toEqual([[1, 6]]);
  });

  it('H3: a reset that skips revisions leaves a hole that nextHistoryAfter names', () => {
    let state = mergeHistoryPage(initialHistoryState(RUN_ID), page([op(2)], 3), 0);
    state = mergeLiveEvent(state, op(9)); // the store reloaded at 8, then received 9
    expect(state.covered).toEqual([
      [1, 3],
      [9, 9],
    ]);
    expect(nextHistoryAfter(state, 9)).toBe(3);
    state = mergeHistoryPage(state, page([op(5)], 9), 3);
    expect(state.operations.map((e) => e.revision)).toEqual([2, 5, 9]);
    expect(nextHistoryAfter(state, 9)).toBeNull();
  });

  it('H4: events and pages of another run change nothing', () => {
    const state = initialHistoryState(RUN_ID);
    expect(mergeLiveEvent(state, { ...op(1), runId: 'run-2' })).toBe(state);
    expect(mergeHistoryPage(state, { ...page([], 1), runId: 'run-2' }, 0)).toBe(state);
  });
});
