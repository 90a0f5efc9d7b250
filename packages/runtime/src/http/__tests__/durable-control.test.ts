import { isStepCount, tool } from 'ai';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { RunEventHub } from '../../events/event-hub';
import { createAgentRuntime } from '../../runner/agent-runtime';
import { createAgentRuntimeStore } from '../../store/agent-runtime-store';
import type { AgentRuntimeDriver } from '../../store/driver/driver';
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

/**
 * Two processes on one database: `a` executes runs; `b` (a second app instance or a gateway,
 * with its own store object over the same driver) serves the HTTP routes.
 */
async function twoInstances(
  options: { gateway?: boolean; driver?: AgentRuntimeDriver; controlPollMs?: number } = {},
) {
  const driver = options.driver ?? createMemoryDriver();
  const storeA = createAgentRuntimeStore(driver);
  const storeB = createAgentRuntimeStore(driver);
  const a = createAgentRuntime({
    store: storeA,
    owner: `worker-a-${crypto.randomUUID()}`,
    onLog: () => {},
    ...(options.controlPollMs === undefined ? {} : { controlPollMs: options.controlPollMs }),
  });
  const b = options.gateway
    ? new RunEventHub()
    : createAgentRuntime({
        store: storeB,
        owner: `worker-b-${crypto.randomUUID()}`,
        onLog: () => {},
      });
  const errors: unknown[] = [];
  const handlers = createRunHandlers({
    store: storeB,
    runtime: b,
    onError: (error) => errors.push(error),
  });
  const server = await listen(toNodeListener(createRunRouter({ handlers, authorize: 'public' })));
  cleanups.push(server.close);
  const post = async (path: string, body?: unknown) => {
    const response = await fetch(`${server.origin}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await response.json()) as { error?: { code: string } };
    return { status: response.status, code: json.error?.code };
  };
  return { a, driver, store: storeA, errors, post };
}

const streaming = () =>
  scriptedModel([{ text: Array.from({ length: 400 }, (_, i) => `w${i} `), tokenMs: 10 }]);

function payingTool() {
  let paid = 0;
  const pay = tool({
    inputSchema: z.object({ amount: z.number() }),
    execute: async ({ amount }) => {
      paid += 1;
      return { paid: amount };
    },
  });
  return { pay, paid: () => paid };
}

async function pauseOn(f: Awaited<ReturnType<typeof twoInstances>>, runId: string) {
  const { pay, paid } = payingTool();
  const paused = await f.a.startRun({
    runId,
    model: scriptedModel([
      { toolCalls: [{ toolName: 'pay', input: { amount: 5 } }] },
      { text: ['paid'] },
    ]),
    messages: [{ role: 'user', content: 'Pay 5' }],
    tools: { pay },
    toolApproval: { pay: 'user-approval' },
    stopWhen: isStepCount(5),
  }).done;
  expect(paused.status).toBe('running');
  const message = (await f.store.getSnapshot(runId)).assistant?.message;
  const part = message?.parts.find((p) => p.type === 'tool-pay') as { approval: { id: string } };
  return { approvalId: part.approval.id, paid };
}

async function ended(store: ReturnType<typeof createAgentRuntimeStore>, runId: string) {
  for (;;) {
    const run = await store.getRun(runId);
    if (run.status !== 'running') return run;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('durable control requests reach the process executing the run', () => {
  it('a cancel sent to the instance not executing the run ends it cancelled', async () => {
    const f = await twoInstances();
    const run = f.a.startRun({
      runId: 'run-1',
      model: streaming(),
      messages: [{ role: 'user', content: 'Go' }],
    });
    await run.created;
    expect(await f.post('/runs/run-1/cancel')).toEqual({ status: 202, code: undefined });
    expect((await run.done).status).toBe('cancelled');
    // A second cancel of the ended run is refused as such.
    expect(await f.post('/runs/run-1/cancel')).toEqual({ status: 409, code: 'run_ended' });
    expect(f.errors).toEqual([]);
  });

  it('a gateway (no runtime) accepts a cancel and the runner ends the run', async () => {
    const f = await twoInstances({ gateway: true });
    const run = f.a.startRun({
      runId: 'run-1',
      model: streaming(),
      messages: [{ role: 'user', content: 'Go' }],
    });
    await run.created;
    expect((await f.post('/runs/run-1/cancel')).status).toBe(202);
    expect((await run.done).status).toBe('cancelled');
    expect(await f.post('/runs/missing/cancel')).toEqual({ status: 404, code: 'run_not_found' });
  });

  it.each([
    ['a second instance', false],
    ['a gateway', true],
  ])(
    'an approval answered on %s resumes the run paused on the runner, exactly once',
    async (_, gateway) => {
      const f = await twoInstances({ gateway });
      const { approvalId, paid } = await pauseOn(f, 'run-1');
      const approve = { approvals: [{ approvalId, approved: true }] };
      const answers = await Promise.all([
        f.post('/runs/run-1/approvals', approve),
        f.post('/runs/run-1/approvals', approve),
        f.post('/runs/run-1/approvals', approve),
      ]);
      expect(answers.map((answer) => answer.status).sort()).toEqual([202, 409, 409]);
      // A loser read the run either before the winner's resume ended it or after.
      for (const answer of answers.filter(({ status }) => status === 409)) {
        expect(['already_resuming', 'run_ended']).toContain(answer.code);
      }
      const end = await ended(f.store, 'run-1');
      expect(end).toMatchObject({ status: 'completed' });
      expect(paid()).toBe(1);
      expect(await f.post('/runs/run-1/approvals', approve)).toEqual({
        status: 409,
        code: 'run_ended',
      });
      expect(await f.post('/runs/run-1/approvals', { approvals: [] })).toMatchObject({
        status: 400,
      });
      expect(f.errors).toEqual([]);
    },
  );

  it('a cancel of a run paused on the runner, sent to a gateway, ends it cancelled', async () => {
    const f = await twoInstances({ gateway: true });
    const { paid } = await pauseOn(f, 'run-1');
    expect((await f.post('/runs/run-1/cancel')).status).toBe(202);
    expect((await ended(f.store, 'run-1')).status).toBe('cancelled');
    expect(paid()).toBe(0);
  });

  it('a request the store cannot record is a 503 storage_unavailable, never a 202', async () => {
    const inner = createMemoryDriver();
    const driver: AgentRuntimeDriver = {
      ...inner,
      appendControlRequest: async () => {
        throw new Error('connection terminated');
      },
    };
    const f = await twoInstances({ gateway: true, driver });
    const { approvalId } = await pauseOn(f, 'run-1');
    expect(await f.post('/runs/run-1/cancel')).toEqual({
      status: 503,
      code: 'storage_unavailable',
    });
    expect(
      await f.post('/runs/run-1/approvals', { approvals: [{ approvalId, approved: true }] }),
    ).toEqual({ status: 503, code: 'storage_unavailable' });
    expect((await f.store.getRun('run-1')).status).toBe('running');
  });

  it('of any number of concurrent answers, on either instance, exactly one resumes the run', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.boolean(), { minLength: 2, maxLength: 5 }),
        fc.nat({ max: 30 }),
        async (onGateway, pollMs) => {
          const f = await twoInstances({ gateway: true, controlPollMs: pollMs + 5 });
          const g = await twoInstances({ driver: f.driver, controlPollMs: pollMs + 5 });
          const { approvalId, paid } = await pauseOn(f, 'run-p');
          const approve = { approvals: [{ approvalId, approved: true }] };
          const answers = await Promise.all(
            onGateway.map((gateway) => (gateway ? f : g).post('/runs/run-p/approvals', approve)),
          );
          expect(answers.filter((answer) => answer.status === 202)).toHaveLength(1);
          for (const answer of answers.filter(({ status }) => status !== 202)) {
            expect(answer.status).toBe(409);
            expect(['already_resuming', 'run_ended', 'run_executing']).toContain(answer.code);
          }
          expect((await ended(f.store, 'run-p')).status).toBe('completed');
          expect(paid()).toBe(1);
        },
      ),
      { numRuns: 15 },
    );
  });
});
