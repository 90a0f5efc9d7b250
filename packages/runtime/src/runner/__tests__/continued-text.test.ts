import type { UIMessage, UIMessageChunk } from 'ai';
import { describe, expect, it } from 'vitest';
import { assembleMessage } from '../../assembly/assistant-assembler';
import {
  CONTINUED_TEXT_ID,
  continueTextPart,
  reopenContinuedText,
} from '../checkpoints/continued-text';

async function through(chunks: UIMessageChunk[]): Promise<UIMessageChunk[]> {
  const out: UIMessageChunk[] = [];
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  }).pipeThrough(continueTextPart());
  const reader = stream.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) out.push(read.value);
  return out;
}

const stored: UIMessage = {
  id: 'm',
  role: 'assistant',
  parts: [{ type: 'step-start' }, { type: 'text', text: 'Half a sent', state: 'done' }],
};
const end: UIMessageChunk[] = [{ type: 'finish-step' }, { type: 'finish' }];

describe('a takeover continues the stored text part', () => {
  it('reopens only a message that ends with text', () => {
    expect(reopenContinuedText(stored)?.parts.at(-1)).toEqual({
      type: 'text',
      text: 'Half a sent',
      state: 'streaming',
    });
    const tool = { ...stored, parts: [...stored.parts, { type: 'step-start' as const }] };
    expect(reopenContinuedText(tool)).toBeNull();
  });

  it.each<[string, UIMessageChunk[], UIMessageChunk[], UIMessage['parts']]>([
    [
      'text first: its deltas extend the part, no new step or part',
      [
        { type: 'start' },
        { type: 'start-step' },
        { type: 'text-start', id: 't' },
        { type: 'text-delta', id: 't', delta: 'ence.' },
        { type: 'text-end', id: 't' },
        ...end,
      ],
      [
        { type: 'start' },
        { type: 'text-delta', id: 't', delta: 'ence.' },
        { type: 'text-end', id: 't' },
        ...end,
      ],
      [{ type: 'step-start' }, { type: 'text', text: 'Half a sentence.', state: 'done' }],
    ],
    [
      'reasoning first: the part is closed before it',
      [
        { type: 'start' },
        { type: 'start-step' },
        { type: 'reasoning-start', id: 'r' },
        { type: 'reasoning-end', id: 'r' },
        ...end,
      ],
      [
        { type: 'start' },
        { type: 'text-end', id: CONTINUED_TEXT_ID },
        { type: 'reasoning-start', id: 'r' },
        { type: 'reasoning-end', id: 'r' },
        ...end,
      ],
      [
        { type: 'step-start' },
        { type: 'text', text: 'Half a sent', state: 'done' },
        { type: 'reasoning', id: 'r', text: '', state: 'done' },
      ],
    ],
    [
      'nothing at all: closed at the end',
      [{ type: 'start' }],
      [{ type: 'start' }, { type: 'text-end', id: CONTINUED_TEXT_ID }],
      [{ type: 'step-start' }, { type: 'text', text: 'Half a sent', state: 'done' }],
    ],
  ])('%s', async (_, chunks, expected, parts) => {
    const out = await through(chunks);
    expect(out).toEqual(expected);
    // The store's read side continues the reopened part exactly so.
    const message = await assembleMessage(reopenContinuedText(stored)!, out);
    expect(message.parts).toEqual(parts);
  });
});
