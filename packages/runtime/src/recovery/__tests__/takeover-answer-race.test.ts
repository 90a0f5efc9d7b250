import type { AgentRun } from '@runlight/protocol';
import { isStepCount, tool } from 'ai';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgentRuntime } from '../../runner/agent-runtime';
import type { RunExecutionOptions, RuntimeLogEntry } from '../../runner/run-options';
import { createAgentRuntimeStore } from '../../store/agent-runtime-store';
import { createMemoryDriver } from '../../store/driver/memory-driver';
import { scriptedModel } from '../../testing/scripted-model';
import { createRunRecovery } from '../create-run-recovery';
import { type DriverCall, gatedDriver, statusChanges, steppingClock } from './gated-driver';

const LEASE_MS = 60_000;
/** No polling timer: only the runtime's own wake-ups drive its control pump. */
const NO_POLL = 3_600_000;
const runId = 'pay-1';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/**
 * Runner A pauses a run for an approval and is killed right before its `lease-released`
 * write: the run stays leased, awaiting an approval. Runner B's recovery takes it over once
 * the lease expired. The answer is recorded through `via` (B's own store object, whose pump
 * hears it, or a gateway's) at the moment the test picks.
 */
async function killedWhilePausing(via: 'runner' | 'gateway', options: { aPollMs?: number } = {}) {
  const driver = createMemoryDriver();
  const clock = steppingClock();
  const gateway = createAgentRuntimeStore(driver, { now: clock.now });
  let paid = 0;
  const pay = tool({
    inputSchema: z.object({ amount: z.number() }),
    execute: async ({ amount }) => {
      paid += 1;
      return { paid: amount };
    },
  });
  // One model for the conversation: its steps answer in order, whichever runner asks.
  const model = scriptedModel([
    { toolCalls: [{ toolName: 'pay', input: { amount: 5 } }] },
    { text: ['paid'] },
  ]);
  const execution = (): RunExecutionOptions => ({
    model,
    messages: [{ role: 'user', content: 'Pay 5' }],
    tools: { pay },
    toolApproval: { pay: 'user-approval' },
    stopWhen: isStepCount(5),
  });

  let killed!: () => void;
  const killedAt = new Promise<void>((resolve) => {
    killed = resolve;
  });
  let dead = false;
  // Killed: never answered again. Frozen (SIGSTOP): answered once thawed.
  let thaw!: () => void;
  const thawed = new Promise<void>((resolve) => {
    thaw = resolve;
  });
  const storeA = createAgentRuntimeStore(
    gatedDriver(driver, (call) => {
      if (!dead && !statusChanges(call).includes('lease-released')) return;
      dead = true;
      killed();
      return thawed;
    }),
    { now: clock.now },
  );
  const a = createAgentRuntime({
    store: storeA,
    owner: 'runner-a',
    leaseMs: LEASE_MS,
    controlPollMs: options.aPollMs ?? NO_POLL,
    onLog: () => {},
  });
  cleanups.push(() => {
    thaw();
    return a.close({ timeoutMs: 100 });
  });
  void a.startRun({ runId, ...execution() }).done;
  await killedAt;
  const part = (await gateway.getSnapshot(runId)).assistant?.message.parts.find(
    (p) => p.type === 'tool-pay',
  ) as { state: string; approval: { id: string } };
  expect(part.state).toBe('approval-requested');
  expect((await gateway.getRun(runId)).leaseExpiresAt).not.toBeNull();

  let onCall: (call: DriverCall) => void | Promise<void> = () => {};
  const applied: DriverCall[] = [];
  const storeB = createAgentRuntimeStore(
    gatedDriver(driver, (call) => {
      if (call.method === 'markControlRequestApplied') applied.push(call);
      return onCall(call);
    }),
    { now: clock.now },
  );
  const logs: RuntimeLogEntry[] = [];
  const b = createAgentRuntime({
    store: storeB,
    owner: 'runner-b',
    leaseMs: LEASE_MS,
    controlPollMs: NO_POLL,
    onLog: (entry) => logs.push(entry),
  });
  const recovery = createRunRecovery({
    store: storeB,
    runtime: b,
    resolveRun: () => execution(),
    adoptAfterMs: 0,
    onLog: () => {},
  });
  const recorder = via === 'runner' ? storeB : gateway;
  let recorded: Promise<boolean> | undefined;
  /** The answer, recorded once (the HTTP route's request id: one per set of pending requests). */
  const record = () =>
    // Assigned before the record's own store call runs (that call meets the hook too).
    (recorded ??= Promise.resolve().then(() =>
      recorder.controlRequests!.record({
        runId,
        requestId: `approvals:${part.approval.id}`,
        kind: 'approvals',
        approvals: [{ approvalId: part.approval.id, approved: true }],
      }),
    ));

  /** The recovery loop goes on polling (every second in production) until the run ends. */
  async function settle(): Promise<AgentRun> {
    for (let round = 0; round < 200; round++) {
      const run = await gateway.getRun(runId);
      if (run.status !== 'running') return run;
      await recovery.tick();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return gateway.getRun(runId);
  }

  return {
    clock,
    recovery,
    record,
    /** The answer's record has begun (its own store calls meet the hook too). */
    recording: () => recorded !== undefined,
    settle,
    logs,
    applied,
    paid: () => paid,
    /** Runner A was only frozen: its calls go on. */
    thaw,
    /** Decides what B does before each of its store calls from now on. */
    beforeCall(hook: (call: DriverCall) => void | Promise<void>) {
      onCall = hook;
    },
  };
}

/** Where the answer is recorded, relative to runner B's takeover of the run. */
type Moment =
  | { kind: 'before' }
  | { kind: 'at'; change: 'acquired' | 'lease-released' }
  | { kind: 'at-call'; index: number }
  | { kind: 'after' };

async function race(via: 'runner' | 'gateway', moment: Moment) {
  const w = await killedWhilePausing(via);
  w.clock.advance(2 * LEASE_MS);
  if (moment.kind === 'before') await w.record();
  let calls = 0;
  w.beforeCall(async (call) => {
    const index = calls++;
    const now =
      (moment.kind === 'at' && statusChanges(call).includes(moment.change)) ||
      (moment.kind === 'at-call' && moment.index === index);
    if (now && !w.recording()) await w.record();
  });
  const outcomes = await w.recovery.tick();
  expect(outcomes).toContainEqual({ runId, result: 'paused', takeovers: 1 });
  // Recorded after the decision (or at a moment the takeover never reached).
  expect(await w.record()).toBe(true);
  const run = await w.settle();
  return { w, run };
}

describe('a takeover and a recorded answer race in any order: the answer applies once', () => {
  const moments: [string, Moment][] = [
    ['before the takeover', { kind: 'before' }],
    ['at the takeover’s acquire (while it decides)', { kind: 'at', change: 'acquired' }],
    ['at its lease release (it decided: paused)', { kind: 'at', change: 'lease-released' }],
    ['after the takeover', { kind: 'after' }],
  ];
  for (const via of ['runner', 'gateway'] as const) {
    for (const [name, moment] of moments) {
      it(`recorded ${name}, through the ${via === 'runner' ? 'recoverer' : 'gateway'}`, async () => {
        const { w, run } = await race(via, moment);
        expect(run.status).toBe('completed');
        expect(w.paid()).toBe(1);
        // Marked applied once, by the execution that applied it.
        expect(w.applied).toHaveLength(1);
        expect(w.logs.filter((entry) => entry.level === 'error')).toEqual([]);
      });
    }
  }

  it('the pausing runner was only frozen: thawed at any point of the takeover, its pump polling, the answer applies once', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: -1, max: 16 }),
        fc.integer({ min: 0, max: 16 }),
        async (recordAt, thawAt) => {
          const w = await killedWhilePausing('gateway', { aPollMs: 5 });
          w.clock.advance(2 * LEASE_MS);
          if (recordAt < 0) await w.record();
          let calls = 0;
          w.beforeCall(async () => {
            const index = calls++;
            if (index === thawAt) w.thaw();
            if (index === recordAt && !w.recording()) await w.record();
          });
          // Paused by the takeover — or skipped: thawed first, A finished its own pause.
          await w.recovery.tick();
          w.thaw();
          expect(await w.record()).toBe(true);
          const run = await w.settle();
          expect(run.status).toBe('completed');
          expect(w.paid()).toBe(1);
          for (const cleanup of cleanups.splice(0)) await cleanup();
        },
      ),
      { numRuns: 25 },
    );
  });

  it('at any store call of the recovering runner, through either store', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('runner' as const, 'gateway' as const),
        fc.integer({ min: 0, max: 20 }),
        async (via, index) => {
          const { w, run } = await race(via, { kind: 'at-call', index });
          expect(run.status).toBe('completed');
          expect(w.paid()).toBe(1);
          expect(w.applied).toHaveLength(1);
        },
      ),
      { numRuns: 30 },
    );
  });
});
