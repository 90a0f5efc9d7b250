import { isStepCount, tool } from 'ai';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgentRuntime } from '../../runner/agent-runtime';
import { createAgentRuntimeStore } from '../../store/agent-runtime-store';
import { createMemoryDriver } from '../../store/driver/memory-driver';
import { scriptedModel } from '../../testing/scripted-model';
import { createRunHandlers } from '../create-run-handlers';
import { createRunRouter } from '../routes/create-run-router';
import { toNodeListener } from '../routes/to-node-listener';
import { listen } from './http-test-kit';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A run paused on one `pay` approval, served over loopback HTTP. */
async function pausedRun(runId = 'run-1') {
  const store = createAgentRuntimeStore(createMemoryDriver());
  const errors: unknown[] = [];
  const runtime = createAgentRuntime({ store, owner: 'worker-a', onLog: () => {} });
  let paid = 0;
  const pay = tool({
    inputSchema: z.object({ amount: z.number() }),
    execute: async ({ amount }) => {
      paid += 1;
      return { paid: amount };
    },
  });
  const model = scriptedModel([
    { toolCalls: [{ toolName: 'pay', input: { amount: 5 } }] },
    // The resumed step streams for a while: answers sent meanwhile meet an executing run.
    { text: Array.from({ length: 20 }, (_, i) => `w${i} `), tokenMs: 15 },
  ]);
  const handlers = createRunHandlers({
    store,
    runtime,
    onError: (error) => errors.push(error),
  });
  const server = await listen(toNodeListener(createRunRouter({ handlers, authorize: 'public' })));
  cleanups.push(server.close);
  const paused = await runtime.startRun({
    runId,
    model,
    messages: [{ role: 'user', content: 'Pay 5' }],
    tools: { pay },
    toolApproval: { pay: 'user-approval' },
    stopWhen: isStepCount(5),
  }).done;
  expect(paused.status).toBe('running');
  const message = (await store.getSnapshot(runId)).assistant?.message;
  const part = message?.parts.find((p) => p.type === 'tool-pay') as { approval: { id: string } };
  const approvalId = part.approval.id;
  const answer = async (approvals: unknown) => {
    const response = await fetch(`${server.origin}/runs/${runId}/approvals`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ approvals }),
    });
    const body = (await response.json()) as { error?: { code: string } };
    return { status: response.status, code: body.error?.code };
  };
  const ended = async () => {
    for (;;) {
      const run = await store.getRun(runId);
      if (run.status !== 'running') return run;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  return { store, approvalId, answer, ended, errors, paid: () => paid };
}

describe('POST /runs/:id/approvals refuses what the run cannot take, and the server lives on', () => {
  it('an unknown approvalId, or a known one with an unknown one: 409, the run still resumes after', async () => {
    const f = await pausedRun();
    expect(await f.answer([{ approvalId: 'nope', approved: true }])).toEqual({
      status: 409,
      code: 'not_awaiting_approval',
    });
    expect(
      await f.answer([
        { approvalId: f.approvalId, approved: true },
        { approvalId: 'nope', approved: true },
      ]),
    ).toEqual({ status: 409, code: 'not_awaiting_approval' });
    expect((await f.answer([{ approvalId: f.approvalId, approved: true }])).status).toBe(202);
    expect((await f.ended()).status).toBe('completed');
    expect(f.paid()).toBe(1);
    expect(f.errors).toEqual([]);
  });

  it('the same approvalId twice in one body is a 400, contradictory or not', async () => {
    const f = await pausedRun();
    const twice = [
      { approvalId: f.approvalId, approved: true },
      { approvalId: f.approvalId, approved: false },
    ];
    expect(await f.answer(twice)).toEqual({ status: 400, code: 'bad_body' });
    expect(f.paid()).toBe(0);
  });

  it('an answer while the resumed run streams is refused at once (409 run_executing), never chained', async () => {
    const f = await pausedRun();
    const approve = [{ approvalId: f.approvalId, approved: true }];
    expect((await f.answer(approve)).status).toBe(202);
    // The resumed step is streaming: a double-click on Approve.
    expect(await f.answer(approve)).toMatchObject({ status: 409 });
    expect((await f.store.getRun('run-1')).status).toBe('running');
    expect((await f.ended()).status).toBe('completed');
    // After the end: refused as ended, not a 500.
    expect(await f.answer(approve)).toMatchObject({ status: 409 });
    expect(f.paid()).toBe(1);
    expect(f.errors).toEqual([]);
  });

  it('of N concurrent answers exactly one resumes the run; the others get 409 before it ends', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 6 }),
        fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
        async (n, approvedBy) => {
          const f = await pausedRun();
          const answers = await Promise.all(
            Array.from({ length: n }, (_, i) =>
              f
                .answer([{ approvalId: f.approvalId, approved: approvedBy[i] ?? true }])
                .then(async (result) => ({
                  ...result,
                  // Refusals are prompt: the run has not ended when they arrive.
                  runningAtAnswer: (await f.store.getRun('run-1')).status === 'running',
                })),
            ),
          );
          const winners = answers.filter((a) => a.status === 202);
          const losers = answers.filter((a) => a.status !== 202);
          expect(winners).toHaveLength(1);
          for (const loser of losers) {
            expect(loser.status).toBe(409);
            expect(loser.runningAtAnswer).toBe(true);
          }
          const run = await f.ended();
          expect(run.status).toBe('completed');
          expect(f.paid()).toBeLessThanOrEqual(1);
          expect(f.errors).toEqual([]);
          for (const cleanup of cleanups.splice(0)) await cleanup();
        },
      ),
      { numRuns: 12 },
    );
  });
});
