import { isStepCount, tool } from 'ai';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { RunEventHub } from '../../events/event-hub';
import { listen } from '../../http/__tests__/http-test-kit';
import { createRunHandlers } from '../../http/create-run-handlers';
import { createRunRouter } from '../../http/routes/create-run-router';
import { toNodeListener } from '../../http/routes/to-node-listener';
import { createAgentRuntime } from '../../runner/agent-runtime';
import type { ResolveRunContext } from '../../runner/control/take-over-run';
import type { RunExecutionOptions } from '../../runner/run-options';
import { type AgentRuntimeStore, createAgentRuntimeStore } from '../../store/agent-runtime-store';
import { createMemoryDriver } from '../../store/driver/memory-driver';
import { scriptedModel } from '../../testing/scripted-model';
import { createRunRecovery } from '../create-run-recovery';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** One database; runner processes come and go; a gateway (no runtime) serves the routes. */
async function deployment() {
  const driver = createMemoryDriver();
  const gatewayStore = createAgentRuntimeStore(driver);
  const handlers = createRunHandlers({ store: gatewayStore, runtime: new RunEventHub() });
  const server = await listen(toNodeListener(createRunRouter({ handlers, authorize: 'public' })));
  cleanups.push(server.close);
  let paid = 0;
  const pay = tool({
    inputSchema: z.object({ amount: z.number() }),
    execute: async ({ amount }) => {
      paid += 1;
      return { paid: amount };
    },
  });
  // One model for the whole conversation: a scripted model answers its steps in order, as the
  // provider would answer the conversation so far.
  const model = scriptedModel([
    { toolCalls: [{ toolName: 'pay', input: { amount: 5 } }] },
    { text: ['paid'] },
  ]);
  /** What the app knows of each run (its conversation and tools), whatever process asks. */
  const execution = (): RunExecutionOptions => ({
    model,
    messages: [{ role: 'user', content: 'Pay 5' }],
    tools: { pay },
    toolApproval: { pay: 'user-approval' },
    stopWhen: isStepCount(5),
  });
  const resolved: ResolveRunContext[] = [];
  const runner = (name: string, leaseMs = 30_000) => {
    const store = createAgentRuntimeStore(driver);
    const runtime = createAgentRuntime({
      store,
      owner: `${name}-${crypto.randomUUID()}`,
      leaseMs,
      onLog: () => {},
    });
    const recovery = createRunRecovery({
      store,
      runtime,
      resolveRun: (_run, context) => {
        resolved.push(context);
        return execution();
      },
      adoptAfterMs: 0,
      onLog: () => {},
    });
    cleanups.push(() => runtime.close({ timeoutMs: 100 }));
    return { store, runtime, recovery };
  };
  const post = async (path: string, body?: unknown) => {
    const response = await fetch(`${server.origin}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return response.status;
  };
  async function pause(runtime: ReturnType<typeof runner>['runtime'], runId: string) {
    const run = await runtime.startRun({ runId, ...execution() }).done;
    expect(run.status).toBe('running');
    const message = (await gatewayStore.getSnapshot(runId)).assistant?.message;
    const part = message?.parts.find((p) => p.type === 'tool-pay') as { approval: { id: string } };
    return { approvals: [{ approvalId: part.approval.id, approved: true }] };
  }
  return { driver, store: gatewayStore, runner, post, pause, resolved, paid: () => paid };
}

async function ended(store: AgentRuntimeStore, runId: string) {
  for (;;) {
    const run = await store.getRun(runId);
    if (run.status !== 'running') return run;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('answers to a run whose pausing process is gone', () => {
  it('an approval answered after its runner stopped is applied by another runner’s recovery, once', async () => {
    const d = await deployment();
    const a = d.runner('runner-a');
    const answer = await d.pause(a.runtime, 'pay-1');
    // A deploy: runner A stops; the paused run holds no lease, nobody remembers it.
    await a.runtime.close();
    expect(await d.post('/runs/pay-1/approvals', answer)).toBe(202);
    const b = d.runner('runner-b');
    const outcomes = await b.recovery.tick();
    expect(outcomes).toEqual([
      {
        runId: 'pay-1',
        result: 'adopted',
        adoption: {
          runId: 'pay-1',
          requestId: expect.stringMatching(/^approvals:/),
          kind: 'approvals',
          result: 'applied',
        },
      },
    ]);
    expect(await ended(d.store, 'pay-1')).toMatchObject({ status: 'completed' });
    expect(d.paid()).toBe(1);
    // The app is shown the message its execution continues: with the answer applied.
    expect(d.resolved).toHaveLength(1);
    expect(d.resolved[0]?.message?.parts.find((p) => p.type === 'tool-pay')).toMatchObject({
      state: 'approval-responded',
      approval: { approved: true },
    });
    // Applied: no later poll adopts it again.
    expect(await b.recovery.tick()).toEqual([]);
    expect(d.paid()).toBe(1);
  });

  it('a cancel of a paused run whose runner is gone is applied by recovery', async () => {
    const d = await deployment();
    const a = d.runner('runner-a');
    await d.pause(a.runtime, 'pay-1');
    await a.runtime.close();
    expect(await d.post('/runs/pay-1/cancel')).toBe(202);
    const b = d.runner('runner-b');
    const [outcome] = await b.recovery.tick();
    expect(outcome?.adoption).toMatchObject({ kind: 'cancel', result: 'applied' });
    expect(await ended(d.store, 'pay-1')).toMatchObject({ status: 'cancelled' });
    expect(d.paid()).toBe(0);
  });

  it('a claim whose claimer died before it took effect is claimed again after a lease', async () => {
    const d = await deployment();
    const a = d.runner('runner-a');
    const answer = await d.pause(a.runtime, 'pay-1');
    await a.runtime.close();
    expect(await d.post('/runs/pay-1/approvals', answer)).toBe(202);
    // A process claimed it, then died before resuming the run.
    const [request] = await d.store.controlRequests!.pending(['pay-1']);
    expect(await d.store.controlRequests!.claim('pay-1', request!.requestId)).toBe(true);
    const b = d.runner('runner-b', 200);
    expect(await b.recovery.tick()).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 250));
    const [outcome] = await b.recovery.tick();
    expect(outcome?.adoption).toMatchObject({ kind: 'approvals', result: 'applied' });
    expect(await ended(d.store, 'pay-1')).toMatchObject({ status: 'completed' });
    expect(d.paid()).toBe(1);
  });

  it('a recovery with nothing to continue the run with ends it ownership_lost instead of leaving the answer waiting', async () => {
    const d = await deployment();
    const a = d.runner('runner-a');
    const answer = await d.pause(a.runtime, 'pay-1');
    await a.runtime.close();
    expect(await d.post('/runs/pay-1/approvals', answer)).toBe(202);
    const b = d.runner('runner-b');
    const recovery = createRunRecovery({
      store: b.store,
      runtime: b.runtime,
      resolveRun: () => undefined,
      adoptAfterMs: 0,
      onLog: () => {},
    });
    const [outcome] = await recovery.tick();
    expect(outcome?.adoption).toMatchObject({ result: 'ended' });
    expect(await d.store.getRun('pay-1')).toMatchObject({
      status: 'failed',
      failure: { code: 'ownership_lost' },
    });
    expect(d.paid()).toBe(0);
  });

  it('an answer the paused run’s own live runner can apply waits for it first (adoptAfterMs)', async () => {
    const d = await deployment();
    const a = d.runner('runner-a');
    const answer = await d.pause(a.runtime, 'pay-1');
    const b = d.runner('runner-b');
    const patient = createRunRecovery({
      store: b.store,
      runtime: b.runtime,
      resolveRun: () => undefined,
      adoptAfterMs: 60_000,
      onLog: () => {},
    });
    expect(await d.post('/runs/pay-1/approvals', answer)).toBe(202);
    expect(await patient.tick()).toEqual([]);
    expect(await ended(d.store, 'pay-1')).toMatchObject({ status: 'completed' });
    expect(d.paid()).toBe(1);
  });

  it('whoever applies it — the live runner that paused the run or any number of recoveries — it applies once', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 3 }), fc.nat({ max: 20 }), async (n, delay) => {
        const d = await deployment();
        const a = d.runner('runner-a');
        const answer = await d.pause(a.runtime, 'pay-1');
        const others = Array.from({ length: n }, (_, i) => d.runner(`runner-${i}`));
        expect(await d.post('/runs/pay-1/approvals', answer)).toBe(202);
        await new Promise((resolve) => setTimeout(resolve, delay));
        await Promise.all(others.map((other) => other.recovery.tick()));
        expect(await ended(d.store, 'pay-1')).toMatchObject({ status: 'completed' });
        await Promise.all(others.map((other) => other.recovery.tick()));
        expect(d.paid()).toBe(1);
        for (const cleanup of cleanups.splice(0)) await cleanup();
      }),
      { numRuns: 12 },
    );
  });
});
