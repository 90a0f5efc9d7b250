import { isAssistantEvent, type RunDeltaEvent } from '@runlight/protocol';
import { isStepCount, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { scriptedModel } from '../../testing/scripted-model';
import { isStructuralChunk } from '../checkpoints/checkpoint-boundary';
import { harness, user } from './harness';

const search = tool({
  inputSchema: z.object({ q: z.string() }),
  execute: async ({ q }) => ({ hits: [q] }),
});

async function scriptedRun(checkpointEveryEvents: number) {
  const h = harness({ checkpointEveryEvents });
  const model = scriptedModel([
    {
      reasoning: 'I should search for this first.',
      text: 'Let me search the index for you.',
      toolCalls: [{ toolName: 'search', input: { q: 'runlight' } }],
    },
    { text: 'Here is what I found in the index, in a longer answer than before.' },
  ]);
  const run = await h.runtime.startRun({
    runId: h.runId,
    model,
    messages: user('Search'),
    tools: { search },
    stopWhen: isStepCount(3),
  }).done;
  expect(run.status).toBe('completed');
  return h;
}

/** Chunks after which the message is unchanged: a trailing batch of only these is not written. */
const NO_OP = new Set(['start', 'finish', 'error', 'abort']);

/**
 * Checkpoints the batching rule predicts: per segment of K ordinary parts ending at a
 * structural boundary, ⌊K/N⌋ + 1; the trailing segment ⌊K/N⌋, plus one for its remainder
 * unless that remainder only holds chunks that leave the message unchanged (the `finish`).
 */
function expectedCheckpoints(deltas: readonly RunDeltaEvent[], cadence: number): number {
  let total = 0;
  let ordinary: string[] = [];
  for (const delta of deltas) {
    if (isStructuralChunk(delta.chunk)) {
      total += Math.floor(ordinary.length / cadence) + 1;
      ordinary = [];
    } else {
      ordinary.push(delta.chunk.type);
    }
  }
  const remainder = ordinary.slice(ordinary.length - (ordinary.length % cadence));
  const changes = remainder.some((type) => !NO_OP.has(type));
  return total + Math.floor(ordinary.length / cadence) + (changes ? 1 : 0);
}

describe('assistant checkpoint writes', () => {
  it.each([1, 3, 16, 1000])('at cadence %i equal the batching formula', async (cadence) => {
    const h = await scriptedRun(cadence);
    const deltas = h.events.filter((event) => event.type === 'run-delta');
    const structural = deltas.filter((delta) => isStructuralChunk(delta.chunk)).length;
    expect(structural).toBe(4); // tool call, tool result and two step finishes
    expect(h.checkpoints()).toHaveLength(expectedCheckpoints(deltas, cadence));
    if (cadence === 1) expect(h.checkpoints()).toHaveLength(deltas.length);
  });

  it('every delta names the latest checkpoint before it and counts from 1 after it', async () => {
    const h = await scriptedRun(4);
    let base = 0;
    let seq = 0;
    for (const event of h.events) {
      if (isAssistantEvent(event)) {
        base = event.revision;
        seq = 0;
      } else if (event.type === 'run-delta') {
        expect([event.baseRevision, event.seq]).toEqual([base, ++seq]);
      }
    }
  });

  it('opt-in checkpointMinGrowth holds ordinary batches: fewer writes, the same message', async () => {
    const words = Array.from({ length: 600 }, (_, i) => `word${i} `);
    const writes = async (checkpointMinGrowth?: number) => {
      const h = harness({ checkpointEveryEvents: 4, checkpointMinGrowth });
      await h.runtime.startRun({
        runId: h.runId,
        model: scriptedModel([{ text: words }]),
        messages: user('Go'),
      }).done;
      const bytes = h.checkpoints().reduce((sum, event) => sum + JSON.stringify(event).length, 0);
      const final = (await h.store.getSnapshot(h.runId)).assistant!.message;
      return { writes: h.checkpoints().length, bytes, final };
    };
    const plain = await writes();
    const doubling = await writes(1);
    expect(doubling.writes * 5).toBeLessThan(plain.writes);
    expect(doubling.bytes).toBeLessThan(plain.bytes);
    expect(doubling.final.parts).toEqual(plain.final.parts);
  });
});
