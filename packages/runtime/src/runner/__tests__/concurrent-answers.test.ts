import { listenOnLoopback } from '@runlight/test-utils';
import { isStepCount, tool, wrapLanguageModel } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRunHandlers } from '../../http/create-run-handlers';
import { createRunRouter } from '../../http/routes/create-run-router';
import { toNodeListener } from '../../http/routes/to-node-listener';
import { scriptedModel } from '../../testing/scripted-model';
import { harness, user } from './harness';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/**
 * A run paused on one `pay` approval whose resumed model step blocks on a gate the test opens:
 * the resumed execution runs for as long as the test wants. `order` records what happened
 * when.
 */
async function pausedWithSlowResume() {
  const h = harness({ checkpointEveryEvents: 1000 });
  const order: string[] = [];
  let paid = 0;
  const pay = tool({
    inputSchema: z.object({ amount: z.number() }),
    execute: async ({ amount }) => {
      paid += 1;
      return { paid: amount };
    },
  });
  let open!: () => void;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  let reached!: () => void;
  const waiting = new Promise<void>((resolve) => {
    reached = resolve;
  });
  let calls = 0;
  const model = wrapLanguageModel({
    model: scriptedModel([
      { toolCalls: [{ toolName: 'pay', input: { amount: 5 } }] },
      { text: 'Done.' },
    ]),
    middleware: {
      specificationVersion: 'v4',
      wrapStream: async ({ doStream }) => {
        if (calls++ === 1) {
          order.push('resumed step waits');
          reached();
          await gate;
        }
        return doStream();
      },
    },
  });
  const paused = await h.runtime.startRun({
    runId: h.runId,
    model,
    messages: user('Pay 5'),
    tools: { pay },
    toolApproval: { pay: 'user-approval' },
    stopWhen: isStepCount(5),
  }).done;
  expect(paused.status).toBe('running');
  const part = (await h.store.getSnapshot(h.runId)).assistant?.message.parts.find(
    (p) => p.type === 'tool-pay',
  ) as { approval: { id: string } };
  return {
    h,
    order,
    approvalId: part.approval.id,
    /** The resumed step reached its gate. */
    waiting,
    open: () => {
      order.push('gate opens');
      open();
    },
    paid: () => paid,
  };
}

describe('of N concurrent answers in one process, the losers are refused at once', () => {
  it('resumeRun: every loser is refused already_resuming before the resumed step even runs', async () => {
    const f = await pausedWithSlowResume();
    const handles = Array.from({ length: 4 }, (_, i) =>
      f.h.runtime.resumeRun({
        runId: f.h.runId,
        approvals: [{ approvalId: f.approvalId, approved: i % 2 === 0 }],
      }),
    );
    const answered = handles.map((handle, i) =>
      handle.created.then(
        () => f.order.push(`created ${i}`),
        (error: { code?: string }) => f.order.push(`refused ${i} ${error.code}`),
      ),
    );
    await f.waiting;
    // The resumed step is blocked: every loser must already have its answer.
    expect(f.order.filter((entry) => entry.startsWith('refused')).sort()).toEqual([
      'refused 1 already_resuming',
      'refused 2 already_resuming',
      'refused 3 already_resuming',
    ]);
    f.open();
    await Promise.all(answered);
    expect(f.order).toContain('created 0');
    expect((await handles[0]!.done).status).toBe('completed');
    expect(f.paid()).toBe(1);
  });

  it('over HTTP with the handlers on the executing runtime: the losers get 409 while the resumed step waits', {
    timeout: 30_000,
  }, async () => {
    const f = await pausedWithSlowResume();
    // A single-box app whose store has no durable control requests (the demo's): the route
    // asks the runtime itself. The route's reads of the run meet at a barrier, so the four
    // answers reach the runtime together — before the winner's answer checkpoint lands, as
    // behind a store with latency.
    const { store } = f.h;
    const n = 4;
    let arrived = 0;
    let meet!: () => void;
    const barrier = new Promise<void>((resolve) => {
      meet = resolve;
    });
    const reads = {
      getSnapshot: store.getSnapshot.bind(store),
      readEvents: store.readEvents.bind(store),
      getRun: async (runId: string) => {
        if (++arrived === n) meet();
        await barrier;
        return store.getRun(runId);
      },
      controlRequests: undefined,
    };
    const handlers = createRunHandlers({ store: reads, runtime: f.h.runtime });
    const server = await listenOnLoopback(
      toNodeListener(createRunRouter({ handlers, authorize: 'public' })),
    );
    cleanups.push(server.close);
    const answers = await Promise.all(
      Array.from({ length: n }, async () => {
        const response = await fetch(`${server.origin}/runs/${f.h.runId}/approvals`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ approvals: [{ approvalId: f.approvalId, approved: true }] }),
        });
        const body = (await response.json()) as { error?: { code: string } };
        f.order.push(`answered ${response.status}`);
        return { status: response.status, code: body.error?.code };
      }),
    );
    // Every answer arrived with the gate still closed: nobody waited for the resumed run.
    expect(f.order).not.toContain('gate opens');
    expect(answers.filter((answer) => answer.status === 202)).toHaveLength(1);
    expect(answers.filter((answer) => answer.status !== 202)).toEqual(
      Array.from({ length: n - 1 }, () => ({ status: 409, code: 'already_resuming' })),
    );
    await f.waiting;
    f.open();
    const ended = await new Promise((resolve) => {
      const stop = f.h.runtime.subscribe(f.h.runId, (event) => {
        if (event.type === 'run-status' && event.change === 'completed') {
          stop();
          resolve(event.change);
        }
      });
    });
    expect(ended).toBe('completed');
    expect(f.paid()).toBe(1);
  });
});
