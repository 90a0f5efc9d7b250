import type { UIMessageChunk } from '@runlight/protocol';
import { checkpoint, delta, snapshot, textMessage } from '@runlight/test-utils';
import { describe, expect, it } from 'vitest';
import { applyEvent } from '../merge/apply-event';
import { mergeSnapshot } from '../merge/merge-snapshot';
import { initialRunState, type RunState } from '../merge/run-state';
import { selectMessage } from '../select/select-message';

function streamed(
  chunks: UIMessageChunk[],
  base: RunState = mergeSnapshot(initialRunState('run-1'), snapshot(2)),
): RunState {
  const baseRevision = base.assistant?.revision ?? 0;
  return chunks.reduce(
    (state, chunk, index) => applyEvent(state, delta(baseRevision, index + 1, chunk)),
    base,
  );
}

describe('selectMessage', () => {
  it('is null with nothing, the checkpoint itself without an overlay', () => {
    expect(selectMessage(initialRunState('run-1'))).toBeNull();
    const state = mergeSnapshot(initialRunState('run-1'), snapshot(5, {}, checkpoint(4)));
    expect(selectMessage(state)).toBe(state.assistant?.message);
  });

  it('applies text and reasoning start/delta/end before any checkpoint', () => {
    const state = streamed([
      { type: 'start', messageId: 'msg-9' },
      { type: 'start-step' },
      { type: 'reasoning-start', id: 'r1' },
      { type: 'reasoning-delta', id: 'r1', delta: 'think' },
      { type: 'reasoning-end', id: 'r1' },
      { type: 'text-start', id: 't1' },
      { type: 'text-delta', id: 't1', delta: 'Hel' },
      { type: 'text-delta', id: 't1', delta: 'lo' },
    ]);
    expect(selectMessage(state)).toEqual({
      id: 'msg-9',
      role: 'assistant',
      parts: [
        { type: 'step-start' },
        { type: 'reasoning', id: 'r1', text: 'think', state: 'done' },
        { type: 'text', text: 'Hello', state: 'streaming' },
      ],
    });
  });

  it('continues a text part begun before the checkpoint', () => {
    const base = mergeSnapshot(
      initialRunState('run-1'),
      snapshot(5, {}, checkpoint(4, textMessage('Hel'))),
    );
    const state = streamed(
      [
        { type: 'text-delta', id: 't1', delta: 'lo' },
        { type: 'text-end', id: 't1' },
      ],
      base,
    );
    expect(selectMessage(state)?.parts).toEqual([{ type: 'text', text: 'Hello', state: 'done' }]);
  });

  it('shows partial tool input while it streams', () => {
    const state = streamed([
      { type: 'tool-input-start', toolCallId: 'call-1', toolName: 'weather' },
      { type: 'tool-input-delta', toolCallId: 'call-1', inputTextDelta: '{"city":"Par' },
    ]);
    expect(selectMessage(state)?.parts).toEqual([
      {
        type: 'tool-weather',
        toolCallId: 'call-1',
        state: 'input-streaming',
        input: { city: 'Par' },
        rawInput: '{"city":"Par',
      },
    ]);
  });

  it('applies structural and data chunks as the SDK does, and does not break on unknown ones', () => {
    const state = streamed([
      { type: 'text-start', id: 't1' },
      { type: 'tool-input-available', toolCallId: 'c', toolName: 'x', input: {} },
      { type: 'tool-output-available', toolCallId: 'c', output: 1 },
      { type: 'finish-step' },
      { type: 'data-progress', data: { value: 1 } },
      { type: 'tool-input-delta', toolCallId: 'missing', inputTextDelta: '{' },
      { type: 'error', errorText: 'x' },
      { type: 'text-delta', id: 't1', delta: 'ok' },
    ] as UIMessageChunk[]);
    expect(selectMessage(state)?.parts).toEqual([
      { type: 'text', text: 'ok', state: 'streaming' },
      { type: 'tool-x', toolCallId: 'c', state: 'output-available', input: {}, output: 1 },
      { type: 'data-progress', data: { value: 1 } },
    ]);
  });

  it('is memoised and never mutates a message it returned', () => {
    const one = streamed([
      { type: 'text-start', id: 't1' },
      { type: 'text-delta', id: 't1', delta: 'a' },
    ]);
    const first = selectMessage(one);
    expect(selectMessage(one)).toBe(first);
    const snapshotOfFirst = structuredClone(first);
    const two = applyEvent(one, delta(0, 3, { type: 'text-delta', id: 't1', delta: 'b' }));
    const second = selectMessage(two);
    expect(second).not.toBe(first);
    expect(first).toEqual(snapshotOfFirst);
    expect(second?.parts[0]).toMatchObject({ text: 'ab' });
    // An older state still reads its own text.
    expect(selectMessage(one)?.parts[0]).toMatchObject({ text: 'a' });
  });
});
