import { isStepCount, tool } from 'ai';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { createRunRecovery } from '../../recovery/create-run-recovery';
import { scriptedModel } from '../../testing/scripted-model';
import { gatedModel, harness, isPhase, nextEvent, user } from './harness';

describe('the lease heartbeat', () => {
  it('renews an idle lease with lease-renewed events that never rewrite the message', async () => {
    const h = harness({ leaseMs: 150 });
    const { model, open } = gatedModel([{ text: 'slow but mine' }]);
    const done = h.runtime.startRun({ runId: h.runId, model, messages: user('Hi') }).done;
    await nextEvent(h.runtime, h.runId, isPhase('started'));
    const checkpointsBefore = h.checkpoints().length;
    const renewals = () =>
      h
        .durable()
        .filter((event) => event.type === 'run-status' && event.change === 'lease-renewed');
    // The provider stays silent until two renewals were written.
    await vi.waitFor(() => expect(renewals().length).toBeGreaterThanOrEqual(2), {
      timeout: 20_000,
      interval: 10,
    });
    // Each renewal moves the public lease forward; no checkpoint was written while idle.
    const expiries = renewals().map((event) => Date.parse(event.leaseExpiresAt!));
    expect(expiries).toEqual([...expiries].sort((a, b) => a - b));
    expect(h.checkpoints().length).toBe(checkpointsBefore);
    open();
    expect((await done).status).toBe('completed');
  });

  it('a run paused for approval holds no lease: never expired, never recovered', async () => {
    const h = harness({ leaseMs: 100 });
    const pay = tool({
      inputSchema: z.object({ amount: z.number() }),
      execute: async () => 'paid',
    });
    const paused = await h.runtime.startRun({
      runId: h.runId,
      model: scriptedModel([{ toolCalls: [{ toolName: 'pay', input: { amount: 5 } }] }]),
      messages: user('Pay 5'),
      tools: { pay },
      toolApproval: { pay: 'user-approval' as const },
      stopWhen: isStepCount(5),
    }).done;
    expect(paused).toMatchObject({ status: 'running', owner: 'worker-a', leaseExpiresAt: null });
    expect(h.durable().at(-1)).toMatchObject({ type: 'run-status', change: 'lease-released' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await h.store.findExpiredRuns()).toEqual([]);
    const recovery = createRunRecovery({
      store: h.store,
      runtime: h.runtime,
      resolveRun: () => {
        throw new Error('a paused run must not be recovered');
      },
    });
    expect(await recovery.tick()).toEqual([]);
  });
});
