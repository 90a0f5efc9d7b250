import type { RunEvent, RunSnapshot } from '@runlight/protocol';
import {
  appendEvent,
  checkpoint,
  checkpointEvent,
  modelRequestOperation,
  operationEvent,
  snapshot,
  statusEvent,
  textDelta,
  textMessage,
} from '@runlight/test-utils';
import { describe, expect, it } from 'vitest';
import { applyEvent } from '../merge/apply-event';
import { mergeSnapshot } from '../merge/merge-snapshot';
import { initialRunState, type RunState } from '../merge/run-state';
import { selectMessage } from '../select/select-message';

/**
 * SPEC.md rules 1–3 as a table: every sync phase of the state × every kind of input.
 * The world: the client holds revision 5, checkpoint 4 ("Hel") and live deltas 1–2 ("lo").
 */
const snap5 = snapshot(5, { lastOperation: modelRequestOperation('first-output') }, checkpoint(4));
const withDeltas = (state: RunState) =>
  applyEvent(applyEvent(state, textDelta(4, 1, 'l')), textDelta(4, 2, 'o'));

const states: Record<string, () => RunState> = {
  loading: () => initialRunState('run-1'),
  synced: () => withDeltas(mergeSnapshot(initialRunState('run-1'), snap5)),
  gap: () =>
    applyEvent(
      withDeltas(mergeSnapshot(initialRunState('run-1'), snap5)),
      operationEvent(8, modelRequestOperation('completed')),
    ),
  terminal: () =>
    mergeSnapshot(
      initialRunState('run-1'),
      snapshot(
        5,
        { status: 'completed', owner: null, lastOperation: modelRequestOperation('completed') },
        checkpoint(4),
      ),
    ),
};

type Input = { snapshot: RunSnapshot } | { event: RunEvent };
const inputs: Record<string, Input> = {
  'snapshot stale (4)': { snapshot: snapshot(4, {}, checkpoint(4)) },
  'snapshot equal (5)': { snapshot: snap5 },
  'snapshot newer (7)': {
    snapshot: snapshot(
      7,
      { lastOperation: modelRequestOperation('first-output') },
      checkpoint(7, textMessage('Hello wo')),
    ),
  },
  'durable duplicate (5)': { event: operationEvent(5, modelRequestOperation('first-output')) },
  'durable next (6)': { event: checkpointEvent(6, textMessage('Hello')) },
  'durable gap (8)': { event: operationEvent(8, modelRequestOperation('completed')) },
  'append next (6 on 4)': { event: appendEvent(6, 4, 'lo') },
  'append duplicate (5 on 4)': { event: appendEvent(5, 4, 'lo') },
  'append wrong base (6 on 3)': { event: appendEvent(6, 3, 'lo') },
  'append gap (8 on 6)': { event: appendEvent(8, 6, 'lo') },
  'delta next (4:3)': { event: textDelta(4, 3, '!') },
  'delta duplicate (4:2)': { event: textDelta(4, 2, 'o') },
  'delta seq gap (4:4)': { event: textDelta(4, 4, '?') },
  'delta other base (6:1)': { event: textDelta(6, 1, '?') },
  'other run': {
    event: { ...operationEvent(6, modelRequestOperation('completed')), runId: 'run-2' },
  },
};

interface Expected {
  same?: true;
  revision?: number;
  phase?: RunState['phase'];
  pending?: number;
  text?: string | null;
}

const SAME: Expected = { same: true };
const table: Record<string, Record<string, Expected>> = {
  loading: {
    'snapshot stale (4)': { revision: 4, phase: 'synced', text: 'Hel' },
    'snapshot equal (5)': { revision: 5, phase: 'synced', text: 'Hel' },
    'snapshot newer (7)': { revision: 7, phase: 'synced', text: 'Hello wo' },
    'durable duplicate (5)': { revision: 0, phase: 'loading', pending: 1 },
    'durable next (6)': { revision: 0, phase: 'loading', pending: 1 },
    'durable gap (8)': { revision: 0, phase: 'loading', pending: 1 },
    'append next (6 on 4)': { revision: 0, phase: 'loading', pending: 1 },
    'append duplicate (5 on 4)': { revision: 0, phase: 'loading', pending: 1 },
    'append wrong base (6 on 3)': { revision: 0, phase: 'loading', pending: 1 },
    'append gap (8 on 6)': { revision: 0, phase: 'loading', pending: 1 },
    'delta next (4:3)': SAME,
    'delta duplicate (4:2)': SAME,
    'delta seq gap (4:4)': SAME,
    'delta other base (6:1)': SAME,
    'other run': SAME,
  },
  synced: {
    'snapshot stale (4)': SAME,
    'snapshot equal (5)': SAME,
    'snapshot newer (7)': { revision: 7, phase: 'synced', text: 'Hello wo' },
    'durable duplicate (5)': SAME,
    'durable next (6)': { revision: 6, phase: 'synced', text: 'Hello' },
    'durable gap (8)': { revision: 5, phase: 'gap', pending: 1, text: 'Hello' },
    // The append holds the overlay's deltas: the message is "Hello", the overlay is spent.
    'append next (6 on 4)': { revision: 6, phase: 'synced', pending: 0, text: 'Hello' },
    'append duplicate (5 on 4)': SAME,
    // Not the message it was cut from: held, and the snapshot reload replaces the message.
    'append wrong base (6 on 3)': { revision: 5, phase: 'gap', pending: 1, text: 'Hello' },
    'append gap (8 on 6)': { revision: 5, phase: 'gap', pending: 1, text: 'Hello' },
    'delta next (4:3)': { revision: 5, text: 'Hello!' },
    'delta duplicate (4:2)': SAME,
    'delta seq gap (4:4)': SAME,
    'delta other base (6:1)': SAME,
    'other run': SAME,
  },
  gap: {
    'snapshot stale (4)': SAME,
    'snapshot equal (5)': SAME,
    // The reload bridged the gap: the held revision 8 applies on top of 7.
    'snapshot newer (7)': { revision: 8, phase: 'synced', pending: 0, text: 'Hello wo' },
    'durable duplicate (5)': SAME,
    'durable next (6)': { revision: 6, phase: 'gap', pending: 1, text: 'Hello' },
    'durable gap (8)': SAME,
    'append next (6 on 4)': { revision: 6, phase: 'gap', pending: 1, text: 'Hello' },
    'append duplicate (5 on 4)': SAME,
    'append wrong base (6 on 3)': { revision: 5, phase: 'gap', pending: 2, text: 'Hello' },
    'append gap (8 on 6)': SAME,
    'delta next (4:3)': { revision: 5, phase: 'gap', text: 'Hello!' },
    'delta duplicate (4:2)': SAME,
    'delta seq gap (4:4)': SAME,
    'delta other base (6:1)': SAME,
    'other run': SAME,
  },
  terminal: {
    'snapshot stale (4)': SAME,
    'snapshot equal (5)': SAME,
    'snapshot newer (7)': { revision: 7, text: 'Hello wo' },
    'durable duplicate (5)': SAME,
    'durable next (6)': { revision: 6, text: 'Hello' },
    'durable gap (8)': { revision: 5, phase: 'gap', pending: 1 },
    'append next (6 on 4)': { revision: 6, text: 'Hello' },
    'append duplicate (5 on 4)': SAME,
    'append wrong base (6 on 3)': { revision: 5, phase: 'gap', pending: 1, text: 'Hel' },
    'append gap (8 on 6)': { revision: 5, phase: 'gap', pending: 1 },
    // A terminal run streams no more: its last checkpoint is the answer.
    'delta next (4:3)': SAME,
    'delta duplicate (4:2)': SAME,
    'delta seq gap (4:4)': SAME,
    'delta other base (6:1)': SAME,
    'other run': SAME,
  },
};

const textOf = (state: RunState) => {
  const message = selectMessage(state);
  if (message === null) return null;
  return message.parts.map((part) => ('text' in part ? part.text : '')).join('');
};

describe('merge rules table (state × input)', () => {
  for (const [stateName, row] of Object.entries(table)) {
    for (const [inputName, expected] of Object.entries(row)) {
      it(`${stateName} × ${inputName}`, () => {
        const before = states[stateName]!();
        const input = inputs[inputName]!;
        const after =
          'snapshot' in input
            ? mergeSnapshot(before, input.snapshot)
            : applyEvent(before, input.event);
        if (expected.same) {
          expect(after).toBe(before);
          return;
        }
        expect(after).not.toBe(before);
        if (expected.revision !== undefined) expect(after.revision).toBe(expected.revision);
        if (expected.phase !== undefined) expect(after.phase).toBe(expected.phase);
        if (expected.pending !== undefined) expect(after.pending).toHaveLength(expected.pending);
        if (expected.text !== undefined) expect(textOf(after)).toBe(expected.text);
        if (after.run !== null) expect(after.run.revision).toBe(after.revision);
      });
    }
  }

  it('covers every state and every input', () => {
    for (const row of Object.values(table))
      expect(Object.keys(row).sort()).toEqual(Object.keys(inputs).sort());
    expect(Object.keys(table).sort()).toEqual(Object.keys(states).sort());
  });
});

describe('applyEvent', () => {
  it('reproduces the run record the store would hold', () => {
    let state = mergeSnapshot(initialRunState('run-1'), snapshot(2));
    state = applyEvent(state, operationEvent(3, modelRequestOperation('started')));
    state = applyEvent(state, statusEvent(4, 'failed', { code: 'provider_failure' }));
    expect(state.run).toEqual({
      ...snapshot(4).run,
      status: 'failed',
      failure: { code: 'provider_failure' },
      lastOperation: modelRequestOperation('started'),
    });
  });

  it('keeps the overlay across operation events, drops it on a checkpoint and on a terminal status', () => {
    let state = mergeSnapshot(initialRunState('run-1'), snapshot(5, {}, checkpoint(4)));
    state = applyEvent(state, textDelta(4, 1, 'lo'));
    state = applyEvent(state, operationEvent(6, modelRequestOperation('first-output')));
    expect(state.live?.seq).toBe(1);
    expect(textOf(state)).toBe('Hello');
    const checkpointed = applyEvent(state, checkpointEvent(7, textMessage('Hello')));
    expect(checkpointed.live).toBeNull();
    const ended = applyEvent(state, statusEvent(7, 'cancelled'));
    expect(ended.live).toBeNull();
  });

  it('applies an append onto the held message and drops the overlay it contains', () => {
    let state = mergeSnapshot(initialRunState('run-1'), snapshot(5, {}, checkpoint(4)));
    state = applyEvent(state, textDelta(4, 1, 'lo'));
    const appended = applyEvent(
      state,
      appendEvent(6, 4, [
        { type: 'text-delta', id: 't', delta: 'lo' },
        { type: 'text-end', id: 't' },
        { type: 'data-note', data: 1 },
      ]),
    );
    expect(appended.live).toBeNull();
    expect(appended.assistant).toEqual({
      revision: 6,
      message: {
        id: 'msg-1',
        role: 'assistant',
        parts: [
          { type: 'text', text: 'Hello', state: 'done' },
          { type: 'data-note', data: 1 },
        ],
      },
    });
    // The held message is never mutated.
    expect(state.assistant).toEqual(checkpoint(4));
    // A delta on the append continues from it.
    expect(applyEvent(appended, textDelta(6, 1, '?')).live?.seq).toBe(1);
  });

  it('branches the shared delta array instead of corrupting a newer state', () => {
    const base = mergeSnapshot(initialRunState('run-1'), snapshot(5, {}, checkpoint(4)));
    const one = applyEvent(base, textDelta(4, 1, 'l'));
    const two = applyEvent(one, textDelta(4, 2, 'p'));
    const other = applyEvent(one, textDelta(4, 2, 'x'));
    expect(textOf(two)).toBe('Hellp');
    expect(textOf(other)).toBe('Hellx');
    expect(textOf(two)).toBe('Hellp');
  });

  it('applies held events once the revisions before them arrive', () => {
    let state = mergeSnapshot(initialRunState('run-1'), snapshot(5));
    state = applyEvent(state, operationEvent(7, modelRequestOperation('first-output')));
    state = applyEvent(state, operationEvent(8, modelRequestOperation('completed')));
    expect(state.phase).toBe('gap');
    state = applyEvent(state, operationEvent(6, modelRequestOperation('started')));
    expect(state.phase).toBe('synced');
    expect(state.revision).toBe(8);
    expect(state.run?.lastOperation?.phase).toBe('completed');
  });
});
