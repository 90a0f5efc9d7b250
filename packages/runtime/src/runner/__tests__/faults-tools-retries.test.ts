import { isStepCount, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { scriptedModel } from '../../testing/scripted-model';
import { durableOnly, restoreDefaultProvider, SECRET } from './fault-fixtures';
import { harness, user } from './harness';

restoreDefaultProvider();

describe('8: tool error text', () => {
  const failing = tool({
    inputSchema: z.object({}),
    execute: async (): Promise<string> => {
      throw new Error(`connect failed postgres://app:${SECRET}@db`);
    },
  });
  const script = () =>
    scriptedModel([{ toolCalls: [{ toolName: 'failing', input: {} }] }, { text: 'Sorry.' }]);
  const toolPartOf = async (h: ReturnType<typeof harness>) =>
    (await h.store.getSnapshot(h.runId)).assistant?.message.parts.find(
      (part) => part.type === 'tool-failing',
    ) as { state: string; errorText?: string } | undefined;

  it('is redacted by default in deltas, checkpoints and the snapshot', async () => {
    const h = harness();
    await h.runtime.startRun({
      runId: h.runId,
      model: script(),
      messages: user('Hi'),
      tools: { failing },
      stopWhen: isStepCount(2),
    }).done;

    expect(JSON.stringify(h.events)).not.toContain(SECRET);
    expect(JSON.stringify(await h.store.getSnapshot(h.runId))).not.toContain(SECRET);
    expect(await toolPartOf(h)).toMatchObject({
      state: 'output-error',
      errorText: 'The tool failed.',
    });
  });

  it('exposeToolErrors: true shows the text; a function maps it', async () => {
    const exposed = harness({ exposeToolErrors: true });
    await exposed.runtime.startRun({
      runId: exposed.runId,
      model: script(),
      messages: user('Hi'),
      tools: { failing },
      stopWhen: isStepCount(2),
    }).done;
    expect((await toolPartOf(exposed))?.errorText).toContain(SECRET);

    const mapped = harness({
      exposeToolErrors: (_error, { toolName, toolCallId }) => `${toolName} ${toolCallId} failed`,
    });
    await mapped.runtime.startRun({
      runId: mapped.runId,
      model: script(),
      messages: user('Hi'),
      tools: { failing },
      stopWhen: isStepCount(2),
    }).done;
    expect((await toolPartOf(mapped))?.errorText).toBe('failing call-0-0 failed');
    expect(JSON.stringify(durableOnly(mapped.events))).not.toContain(SECRET);
  });
});

describe('9: retries are visible on the attempt records', () => {
  it('a 429 then a 500 then an answer: one operation per attempt, reasons, willRetry, the first startedAt', async () => {
    const h = harness();
    const run = await h.runtime.startRun({
      runId: h.runId,
      model: scriptedModel([
        { error: { at: 'request', status: 429, retryAfterMs: 0, message: SECRET } },
        { error: { at: 'request', status: 500, retryAfterMs: 0, message: SECRET } },
        { text: 'Finally.' },
      ]),
      messages: user('Hi'),
    }).done;

    expect(run.status).toBe('completed');
    const ops = h.operations();
    const first = ops[0];
    expect(ops.map((op) => [op.attempt, op.phase, op.failureReason, op.willRetry])).toEqual([
      [1, 'started', undefined, undefined],
      [1, 'failed', 'rate_limited', true],
      [2, 'started', undefined, undefined],
      [2, 'failed', 'server_error', true],
      [3, 'started', undefined, undefined],
      [3, 'first-output', undefined, undefined],
      [3, 'completed', undefined, undefined],
    ]);
    expect(ops[0]?.requestStartedAt).toBeUndefined();
    for (const op of ops.slice(2)) expect(op.requestStartedAt).toBe(first?.startedAt);
  });

  it('the last attempt says willRetry false; a 400 is not retried', async () => {
    const h = harness();
    const run = await h.runtime.startRun({
      runId: h.runId,
      model: scriptedModel([
        { error: { at: 'request', status: 503, retryAfterMs: 0 } },
        { error: { at: 'request', status: 400 } },
      ]),
      messages: user('Hi'),
    }).done;
    expect(run.failure?.code).toBe('provider_failure');
    const failed = h.operations().filter((op) => op.phase === 'failed');
    expect(failed.map((op) => [op.failureReason, op.willRetry])).toEqual([
      ['server_error', true],
      ['other', false],
    ]);
  });
});

describe('found by the fault simulation', () => {
  const pay = tool({ inputSchema: z.object({ amount: z.number() }), execute: async () => 'paid' });
  const pausedRun = async () => {
    const h = harness();
    const options = {
      runId: h.runId,
      model: scriptedModel([
        { text: 'Paying.', toolCalls: [{ toolName: 'pay', input: { amount: 5 } }] },
        { text: 'Done.' },
      ]),
      messages: user('Pay 5'),
      tools: { pay },
      toolApproval: { pay: 'user-approval' as const },
      stopWhen: isStepCount(3),
    };
    const run = await h.runtime.startRun(options).done;
    expect(run.status).toBe('running');
    const parts = (await h.store.getSnapshot(h.runId)).assistant?.message.parts ?? [];
    const approvalId = parts.flatMap((part) =>
      'approval' in part && part.state === 'approval-requested' ? [part.approval.id] : [],
    )[0];
    return { h, approvalId: approvalId ?? '' };
  };

  it('a resume that leaves an approval request unanswered is refused (not a provider failure)', async () => {
    const { h } = await pausedRun();
    await expect(h.runtime.resumeRun({ runId: h.runId, approvals: [] }).done).rejects.toThrow(
      /unanswered approval requests/,
    );
    expect((await h.store.getRun(h.runId)).status).toBe('running');
  });

  it('a resume sent while a cancel of the paused run is in progress waits, then finds it ended', async () => {
    const { h, approvalId } = await pausedRun();
    h.runtime.cancelRun(h.runId);
    const resumed = h.runtime.resumeRun({
      runId: h.runId,
      approvals: [{ approvalId, approved: true }],
    }).done;

    await expect(resumed).rejects.toThrow(/already ended cancelled/);
    const run = await h.store.getRun(h.runId);
    expect(run.status).toBe('cancelled');
    expect(h.durable()).toEqual(await h.store.readEvents(h.runId));
  });
});
