import { isAssistantEvent, parseRunEvent } from '@runlight/protocol';
import { isStepCount, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { assembleMessage } from '../../assembly/assistant-assembler';
import { scriptedModel } from '../../testing/scripted-model';
import { harness, user } from './harness';

const weather = tool({
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, sky: 'sunny' }),
});

describe('a 3-step tool run', () => {
  it('records one model request per step, checkpoints at each structural boundary and ends completed', async () => {
    const h = harness({ checkpointEveryEvents: 1000 });
    const model = scriptedModel([
      { text: 'Let me look.', toolCalls: [{ toolName: 'weather', input: { city: 'Oslo' } }] },
      { toolCalls: [{ toolName: 'weather', input: { city: 'Rome' } }] },
      { text: 'Sunny in both.' },
    ]);
    const run = await h.runtime.startRun({
      runId: h.runId,
      model,
      messages: user('Weather?'),
      tools: { weather },
      stopWhen: isStepCount(5),
    }).done;

    expect(h.logs).toEqual([]);
    expect(run.status).toBe('completed');
    expect(model.doStreamCalls).toHaveLength(3);

    const operations = h.operations();
    expect(operations.map((operation) => [operation.step, operation.phase])).toEqual([
      [0, 'started'],
      [0, 'first-output'],
      [0, 'completed'],
      [1, 'started'],
      [1, 'first-output'],
      [1, 'completed'],
      [2, 'started'],
      [2, 'first-output'],
      [2, 'completed'],
    ]);
    for (const operation of operations) {
      expect(operation.id).toMatch(
        new RegExp(`^model-request:step-${operation.step}:.+:attempt-1$`),
      );
    }
    expect(new Set(operations.map((operation) => operation.id)).size).toBe(3);

    const durable = h.durable();
    const revisions = durable.map((event) => event.revision);
    expect(revisions).toEqual(revisions.map((_, index) => revisions[0]! + index));
    expect(durable.at(-1)).toMatchObject({ type: 'run-status', change: 'completed' });

    // Structural boundaries: tool call, tool result, finish-step (x3 steps) — each followed
    // at once by a checkpoint, since the cadence alone would never checkpoint here. The
    // trailing `finish` changes nothing in the message and is not rewritten for.
    const boundaryTypes = h.events.flatMap((event, index) => {
      if (event.type !== 'run-delta') return [];
      const next = h.events.slice(index + 1).find((later) => later.type !== 'run-operation');
      return next && isAssistantEvent(next) ? [event.chunk.type] : [];
    });
    expect(boundaryTypes).toEqual([
      'tool-input-available',
      'tool-output-available',
      'finish-step',
      'tool-input-available',
      'tool-output-available',
      'finish-step',
      'finish-step',
    ]);
    // The snapshot materialises the appends; it equals the SDK's assembly of every live delta.
    const final = (await h.store.getSnapshot(h.runId)).assistant!.message;
    const chunks = h.events.flatMap((event) => (event.type === 'run-delta' ? [event.chunk] : []));
    const empty = { id: final.id, role: 'assistant' as const, parts: [] };
    expect(await assembleMessage(empty, chunks)).toEqual(final);
    expect(final.parts.map((part) => part.type)).toEqual([
      'step-start',
      'text',
      'tool-weather',
      'step-start',
      'tool-weather',
      'step-start',
      'text',
    ]);
  });

  it('publishes exactly the durable events the store appended, in order, and only valid events', async () => {
    const h = harness({ checkpointEveryEvents: 3 });
    const model = scriptedModel([
      { reasoning: 'Hmm.', toolCalls: [{ toolName: 'weather', input: { city: 'Oslo' } }] },
      { text: 'Sunny.' },
    ]);
    await h.runtime.startRun({
      runId: h.runId,
      model,
      messages: user('Weather?'),
      tools: { weather },
      stopWhen: isStepCount(5),
    }).done;

    expect(h.durable()).toEqual(await h.store.readEvents(h.runId));
    for (const event of h.events) expect(() => parseRunEvent(event)).not.toThrow();
  });
});
