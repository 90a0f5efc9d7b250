import type { UIMessage } from '@runlight/protocol';
import { isAssistantEvent } from '@runlight/protocol';
import { isStepCount, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { scriptedModel } from '../../testing/scripted-model';
import { idempotencyKeyOf } from '../tools/managed-tools';
import { harness, nextEvent, user } from './harness';

function setup() {
  const h = harness({ checkpointEveryEvents: 1000 });
  const keys: (string | undefined)[] = [];
  const pay = tool({
    inputSchema: z.object({ amount: z.number() }),
    execute: async ({ amount }, options) => {
      keys.push(idempotencyKeyOf(options));
      return { paid: amount };
    },
  });
  const model = scriptedModel([
    { toolCalls: [{ toolName: 'pay', input: { amount: 5 } }] },
    { text: 'Done.' },
  ]);
  const options = {
    runId: h.runId,
    model,
    messages: user('Pay 5'),
    tools: { pay },
    toolApproval: { pay: 'user-approval' as const },
    stopWhen: isStepCount(5),
  };
  return { h, keys, model, options };
}

const toolPart = (message: UIMessage | undefined) =>
  message?.parts.find((part) => part.type === 'tool-pay') as
    | { state: string; approval?: { id: string; approved?: boolean } }
    | undefined;

/** The chunk type of each delta that is followed by a checkpoint before any other delta. */
const checkpointedAfter = (events: ReturnType<typeof harness>['events']) =>
  events.flatMap((event, index) => {
    if (event.type !== 'run-delta') return [];
    const next = events.slice(index + 1).find((later) => later.type !== 'run-operation');
    return next && isAssistantEvent(next) ? [event.chunk.type] : [];
  });

describe('tool approvals', () => {
  it('pauses with the request checkpointed; approved → tool result checkpointed → next step', async () => {
    const { h, keys, model, options } = setup();
    const paused = await h.runtime.startRun(options).done;

    expect(paused.status).toBe('running');
    expect(paused.lastOperation).toMatchObject({ step: 0, phase: 'completed' });
    expect(checkpointedAfter(h.events)).toContain('tool-approval-request');
    const requested = (await h.store.getSnapshot(h.runId)).assistant?.message;
    expect(toolPart(requested)?.state).toBe('approval-requested');
    expect(keys).toEqual([]);

    const approvalId = toolPart(requested)!.approval!.id;
    const before = h.events.length;
    const run = await h.runtime.resumeRun({
      runId: h.runId,
      approvals: [{ approvalId, approved: true }],
    }).done;

    expect(run.status).toBe('completed');
    expect(keys).toEqual([`${h.runId}:call-0-0`]);
    expect(model.doStreamCalls).toHaveLength(2);
    const resumed = h.events.slice(before);
    // The answer is a durable fact before anything runs.
    const firstCheckpoint = resumed.find((event) => event.type === 'assistant-checkpoint');
    expect(
      firstCheckpoint?.type === 'assistant-checkpoint' &&
        toolPart(firstCheckpoint.checkpoint.message)?.state,
    ).toBe('approval-responded');
    expect(checkpointedAfter(resumed)).toEqual(['tool-output-available', 'finish-step']);
    // Steps continue the run's count.
    const steps = resumed.flatMap((event) =>
      event.type === 'run-operation' ? [event.operation.step] : [],
    );
    expect(new Set(steps)).toEqual(new Set([1]));
    const final = (await h.store.getSnapshot(h.runId)).assistant!.message;
    expect(final.id).toBe(requested?.id);
    expect(final.parts.map((part) => part.type)).toEqual([
      'step-start',
      'tool-pay',
      'step-start',
      'text',
    ]);
    expect(toolPart(final)?.state).toBe('output-available');
  });

  it('denied → tool-output-denied checkpointed, the tool never runs, the model continues', async () => {
    const { h, keys, options } = setup();
    await h.runtime.startRun(options).done;
    const approvalId = toolPart((await h.store.getSnapshot(h.runId)).assistant?.message)!.approval!
      .id;
    const before = h.events.length;
    const run = await h.runtime.resumeRun({
      runId: h.runId,
      approvals: [{ approvalId, approved: false, reason: 'too much' }],
    }).done;

    expect(run.status).toBe('completed');
    expect(keys).toEqual([]);
    expect(checkpointedAfter(h.events.slice(before))).toContain('tool-output-denied');
    const final = (await h.store.getSnapshot(h.runId)).assistant!.message;
    expect(toolPart(final)?.state).toBe('output-denied');
  });

  it('resumeRun after a restart takes model and messages from the caller', async () => {
    const { h, options } = setup();
    await h.runtime.startRun(options).done;
    const approvalId = toolPart((await h.store.getSnapshot(h.runId)).assistant?.message)!.approval!
      .id;
    const restarted = harness({ store: h.store });
    await expect(
      restarted.runtime.resumeRun({ runId: h.runId, approvals: [{ approvalId, approved: true }] })
        .done,
    ).rejects.toThrow(/pass model and messages/);
    const run = await restarted.runtime.resumeRun({
      ...options,
      approvals: [{ approvalId, approved: true }],
    }).done;
    expect(run.status).toBe('completed');
  });

  it('cancelRun while awaiting approval ends the run cancelled', async () => {
    const { h, keys, options } = setup();
    await h.runtime.startRun(options).done;
    const cancelled = nextEvent(
      h.runtime,
      h.runId,
      (event) => event.type === 'run-status' && event.change === 'cancelled',
    );
    h.runtime.cancelRun(h.runId);
    await cancelled;
    expect((await h.store.getRun(h.runId)).status).toBe('cancelled');
    expect(keys).toEqual([]);
  });

  it('a resume sent as soon as the request is visible waits for the pause instead of failing', async () => {
    const { h, options } = setup();
    const requested = nextEvent(
      h.runtime,
      h.runId,
      (event) =>
        event.type === 'assistant-append' &&
        event.chunks.some((chunk) => chunk.type === 'tool-approval-request'),
    );
    const first = h.runtime.startRun(options).done;
    await requested;
    const approvalId = toolPart((await h.store.getSnapshot(h.runId)).assistant?.message)!.approval!
      .id;
    const resumed = h.runtime.resumeRun({
      runId: h.runId,
      approvals: [{ approvalId, approved: true }],
    });
    expect((await first).status).toBe('running');
    expect((await resumed.done).status).toBe('completed');
  });

  it('automatic approvals run in one execution, checkpointing the request and the response', async () => {
    const { h, keys, options } = setup();
    const run = await h.runtime.startRun({ ...options, toolApproval: { pay: 'approved' } }).done;
    expect(run.status).toBe('completed');
    expect(keys).toEqual([`${h.runId}:call-0-0`]);
    expect(checkpointedAfter(h.events)).toEqual([
      'tool-input-available',
      'tool-approval-request',
      'tool-approval-response',
      'tool-output-available',
      'finish-step',
      'finish-step',
    ]);
  });
});
