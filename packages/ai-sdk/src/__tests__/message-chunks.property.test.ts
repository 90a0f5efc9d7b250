import { readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type ChunkCursor,
  chunkCursorOf,
  emptyChunkCursor,
  messageChunks,
} from '../message-chunks';

type Part = UIMessage['parts'][number];

/** A final assistant message: steps of reasoning, text and an approved tool call. */
const finalMessage = fc
  .array(
    fc.record({
      reasoning: fc.option(fc.string({ minLength: 1, maxLength: 20 }), { nil: undefined }),
      text: fc.string({ minLength: 1, maxLength: 40 }),
      tool: fc.boolean(),
    }),
    { minLength: 1, maxLength: 3 },
  )
  .map((steps): UIMessage => {
    const parts: Part[] = [];
    steps.forEach((step, index) => {
      parts.push({ type: 'step-start' });
      if (step.reasoning !== undefined)
        parts.push({
          type: 'reasoning',
          id: `reasoning-${index}`,
          text: step.reasoning,
          state: 'done',
        });
      parts.push({ type: 'text', text: step.text, state: 'done' });
      if (step.tool) {
        parts.push({
          type: 'tool-pay',
          toolCallId: `call-${index}`,
          state: 'output-available',
          input: { amount: index },
          output: { paid: index },
          approval: { id: `approval-${index}`, approved: true },
        } as Part);
      }
    });
    return { id: 'assistant-1', role: 'assistant', parts };
  });

const TOOL_STATES = [
  'input-streaming',
  'input-available',
  'approval-requested',
  'approval-responded',
  'output-available',
];

/** The message as the run shows it part-way: `count` parts, the last one `fraction` grown. */
function partial(message: UIMessage, count: number, fraction: number): UIMessage {
  const parts = message.parts.slice(0, count).map((part, index, all): Part => {
    if (index < all.length - 1) return part;
    if (part.type === 'text' || part.type === 'reasoning') {
      const length = Math.floor(part.text.length * fraction);
      return length >= part.text.length
        ? part
        : { ...part, text: part.text.slice(0, length), state: 'streaming' };
    }
    if (part.type === 'tool-pay') {
      const state = TOOL_STATES[Math.min(4, Math.floor(fraction * 5))]!;
      const tool = part as Part & { approval: { id: string; approved?: boolean } };
      const approval =
        state === 'approval-requested'
          ? { id: tool.approval.id }
          : state === 'input-streaming' || state === 'input-available'
            ? undefined
            : tool.approval;
      const {
        output: _output,
        approval: _approval,
        ...rest
      } = tool as unknown as Record<string, unknown>;
      return {
        ...rest,
        state,
        ...(state === 'input-streaming' ? { input: undefined } : {}),
        ...(approval ? { approval } : {}),
        ...(state === 'output-available' ? { output: (tool as { output: unknown }).output } : {}),
      } as Part;
    }
    return part;
  });
  return { ...message, parts };
}

/** A run's successive message states: growing, with repeats (a checkpoint replacing deltas). */
const history = finalMessage.chain((message) =>
  fc
    .array(fc.tuple(fc.nat(), fc.double({ min: 0, max: 1, noNaN: true })), { maxLength: 12 })
    .map((points) => {
      const states = points
        .map(([count, fraction]) => [1 + (count % message.parts.length), fraction] as const)
        .sort((a, b) => a[0] - b[0] || a[1] - b[1])
        .map(([count, fraction]) => partial(message, count, fraction));
      return { message, states: [...states, message] };
    }),
);

async function replay(chunks: UIMessageChunk[], start?: UIMessage): Promise<UIMessage | undefined> {
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  let last: UIMessage | undefined;
  const errors: unknown[] = [];
  for await (const message of readUIMessageStream({
    ...(start ? { message: start } : {}),
    stream,
    onError: (error) => errors.push(error),
  })) {
    last = message;
  }
  expect(errors).toEqual([]);
  return last;
}

function chunksFor(cursor: ChunkCursor, states: UIMessage[]): UIMessageChunk[] {
  const chunks: UIMessageChunk[] = [];
  for (const state of states) {
    const next = messageChunks(cursor, state);
    cursor = next.cursor;
    chunks.push(...next.chunks);
  }
  return chunks;
}

describe('messageChunks', () => {
  it('any growing history of a run message becomes chunks the AI SDK folds back into exactly the final message', async () => {
    await fc.assert(
      fc.asyncProperty(history, async ({ message, states }) => {
        const folded = await replay([...chunksFor(emptyChunkCursor(), states), { type: 'finish' }]);
        expect(folded?.parts).toEqual(message.parts);
        expect(folded?.id).toBe(message.id);
      }),
      { numRuns: 200 },
    );
  });

  it('continuing from a message the chat already holds (after approvals) sends only what it lacks', async () => {
    await fc.assert(
      fc.asyncProperty(history, fc.nat(), async ({ message, states }, pick) => {
        const held = states[pick % states.length]!;
        // The chat continues a message the run paused on (approvals end the step): no part is
        // still streaming — a part the chat did not open in this stream cannot take deltas.
        fc.pre(held.parts.every((part) => !('state' in part) || part.state !== 'streaming'));
        const rest = states.slice(pick % states.length);
        const chunks = chunksFor(chunkCursorOf(held), rest);
        expect(chunks.some((chunk) => chunk.type === 'start')).toBe(false);
        const folded = await replay([...chunks, { type: 'finish' }], structuredClone(held));
        expect(folded?.parts ?? held.parts).toEqual(message.parts);
      }),
      { numRuns: 200 },
    );
  });
});
