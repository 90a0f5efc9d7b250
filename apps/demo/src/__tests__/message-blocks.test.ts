import type { UIMessage } from '@runlight/protocol';
import { describe, expect, it } from 'vitest';
import { droppedCharacters, messageBlocks } from '../message-blocks';

type Part = UIMessage['parts'][number];
const text = (value: string): Part => ({ type: 'text', text: value, state: 'done' });
const step: Part = { type: 'step-start' };
const tool: Part = {
  type: 'tool-weather',
  toolCallId: 'call-1',
  state: 'output-available',
  input: { city: 'Oslo' },
  output: { sky: 'snow' },
} as Part;

const shape = (parts: Part[]) =>
  messageBlocks(parts).map((block) =>
    block.type === 'step'
      ? `step ${block.step}`
      : block.type === 'text'
        ? block.segments.join('|')
        : block.part.type,
  );

describe('messageBlocks', () => {
  it('a worker that continues an interrupted step reads on: no new step in mid-sentence', () => {
    // "Worker crashes": worker-a wrote up to "that lease ", worker-b continues the sentence.
    expect(shape([step, text('once that lease '), step, text('runs out, it recovers.')])).toEqual([
      'step 0',
      'once that lease |runs out, it recovers.',
    ]);
  });

  it('steps after a tool call keep their dividers and numbers', () => {
    expect(shape([step, text('Let me check.'), tool, step, text('Snow in Oslo.')])).toEqual([
      'step 0',
      'Let me check.',
      'tool-weather',
      'step 1',
      'Snow in Oslo.',
    ]);
    // A continued step still counts, so later dividers keep the timeline's step numbers.
    expect(shape([step, text('Let'), step, text(' me check.'), tool, step, text('Snow.')])).toEqual(
      ['step 0', 'Let| me check.', 'tool-weather', 'step 2', 'Snow.'],
    );
  });
});

describe('droppedCharacters', () => {
  it('is 0 while the text grows, else how much of what was shown is gone', () => {
    expect(droppedCharacters('', 'Hello')).toBe(0);
    expect(droppedCharacters('Hel', 'Hello')).toBe(0);
    expect(droppedCharacters('Durable run facts mean', 'Durable run worker-b here')).toBe(10);
    expect(droppedCharacters('Durable run', 'Durable run')).toBe(0);
  });
});
