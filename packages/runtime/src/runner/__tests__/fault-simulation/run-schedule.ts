import type { AgentRun, DurableRunEvent, RunEvent } from '@runlight/protocol';
import { isStepCount, tool } from 'ai';
import { z } from 'zod';
import { RunEventHub } from '../../../events/event-hub';
import { createAgentRuntimeStore } from '../../../store/agent-runtime-store';
import { createMemoryDriver } from '../../../store/driver/memory-driver';
import { scriptedModel } from '../../../testing/scripted-model';
import { seededRandom } from '../../../testing/with-latency';
import { type AgentRuntime, createAgentRuntime } from '../../agent-runtime';
import type { CompactFunction } from '../../run-options';
import { checkInvariants, type Outcome } from './invariants';
import { type Schedule, SECRET, scheduleOf } from './schedule';
import { simDriver } from './sim-driver';

const RUN_ID = 'sim-run';
/** Tries of one store mutation in the simulation (the runtime's default, without pauses). */
export const SIM_STORE_ATTEMPTS = 4;

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Runs the schedule of `seed` end to end — start, faults, cancels, a lease theft, the approval
 * pause and its answer — and returns every invariant it violated (empty when all held).
 *
 * @example
 * const { violations } = await runSchedule(42);
 */
export async function runSchedule(seed: number): Promise<{
  schedule: Schedule;
  violations: string[];
  trace: () => Promise<{ log: DurableRunEvent[]; published: Record<string, DurableRunEvent[]> }>;
}> {
  const schedule = scheduleOf(seed);
  const random = seededRandom(seed ^ 0x9e3779b9);
  const actions: (() => void)[] = [];
  let acting = true;
  // One try of a mutation takes at most three driver calls (load, compare-and-set, the check),
  // and the other runtime (a thief) may make as many calls in between: the tries of one
  // mutation span at most twice that.
  const window = 2 * 3 * SIM_STORE_ATTEMPTS;
  const sim = simDriver(createMemoryDriver(), { ...schedule, window }, random, (calls) => {
    if (!acting) return;
    if (calls === schedule.cancelAt) actions.push(() => runtimeA.cancelRun(RUN_ID));
    if (calls === schedule.theftAt) actions.push(() => steal());
    // The world acts between calls, never inside one.
    if (actions.length > 0) {
      queueMicrotask(() => {
        for (const act of actions.splice(0)) act();
      });
    }
  });

  const store = createAgentRuntimeStore(sim.driver);
  // The thief's clock is ten minutes ahead: the victim's lease has expired for it.
  const thiefStore = createAgentRuntimeStore(sim.driver, {
    now: () => new Date(Date.now() + 10 * 60_000),
  });
  const published = new Map<string, RunEvent[]>([
    ['a', []],
    ['b', []],
  ]);
  const logs: string[] = [];
  const runtime = (name: 'a' | 'b', runtimeStore = store): AgentRuntime => {
    const events = new RunEventHub();
    events.subscribe(RUN_ID, (event) => published.get(name)?.push(event));
    return createAgentRuntime({
      store: runtimeStore,
      events,
      checkpointEveryEvents: 3,
      storeRetry: { attempts: SIM_STORE_ATTEMPTS, delayMs: 0 },
      onLog: (entry) => logs.push(`${entry.message}: ${String(entry.error)}`),
    });
  };
  const runtimeA = runtime('a');
  const runtimeB = runtime('b', thiefStore);

  const lookup = tool({
    inputSchema: z.object({ q: z.string() }),
    execute: async () => {
      if (schedule.toolThrows) throw new Error(`lookup failed: ${SECRET}`);
      return 'found';
    },
  });
  const pay = tool({ inputSchema: z.object({ amount: z.number() }), execute: async () => 'paid' });
  let compactions = 0;
  const compact: CompactFunction | undefined = schedule.compact
    ? ({ messages }) => {
        const outcome = schedule.compact?.[compactions++ % (schedule.compact?.length ?? 1)];
        if (outcome === 'throw') throw new Error(`compaction failed: ${SECRET}`);
        return outcome === 'compacted'
          ? { status: 'compacted', messages }
          : { status: 'not_needed' };
      }
    : undefined;

  const outcome: Outcome = {
    handles: [],
    cancelled: false,
    theft: false,
    paused: false,
    compactionThrew: () =>
      compactions > 0 && (schedule.compact ?? []).slice(0, compactions).includes('throw'),
  };
  const settleHandle = (name: 'a' | 'b', done: Promise<AgentRun>) => {
    const settled = done.then(
      (run) => ({ name, run, error: undefined }),
      (error: unknown) => ({ name, run: undefined, error }),
    );
    outcome.handles.push(settled);
    return settled;
  };

  let stolen: Promise<unknown> = Promise.resolve();
  const steal = () => {
    outcome.theft = true;
    const done = runtimeB.startRun({
      runId: RUN_ID,
      model: scriptedModel([{ text: 'The new owner answers.' }, { text: 'Spare.' }]),
      messages: [{ role: 'user', content: 'Hi' }],
    }).done;
    stolen = settleHandle('b', done);
  };
  const cancel = runtimeA.cancelRun.bind(runtimeA);
  runtimeA.cancelRun = (runId) => {
    outcome.cancelled = true;
    cancel(runId);
  };

  const first = await settleHandle(
    'a',
    runtimeA.startRun({
      runId: RUN_ID,
      model: scriptedModel(schedule.steps),
      messages: [{ role: 'user', content: 'Hi' }],
      tools: { lookup, pay },
      toolApproval: { pay: 'user-approval' },
      stopWhen: isStepCount(schedule.stepLimit),
      maxRetries: schedule.maxRetries,
      compact,
    }).done,
  );
  await stolen;

  // The approval pause, answered as the schedule says.
  let paused = first.run?.status === 'running' && (await pausedForApproval(store));
  if (paused && !outcome.theft && schedule.onPause !== 'leave') {
    const snapshot = await readSnapshot(store);
    const approvalIds = (snapshot?.assistant?.message.parts ?? []).flatMap((part) =>
      'state' in part && part.state === 'approval-requested' && 'approval' in part
        ? [(part.approval as { id: string }).id]
        : [],
    );
    if (schedule.onPause === 'cancel') {
      runtimeA.cancelRun(RUN_ID);
    } else {
      await settleHandle(
        'a',
        runtimeA.resumeRun({
          runId: RUN_ID,
          approvals: approvalIds.map((approvalId) => ({
            approvalId,
            approved: schedule.onPause === 'approve',
          })),
        }).done,
      );
    }
  }
  await stolen;
  // Let an idle cancel, a late theft and every queued write finish, then read healed.
  for (let round = 0; round < 5; round++) {
    for (let tick = 0; tick < 10; tick++) await settle();
    const count = outcome.handles.length;
    await Promise.all(outcome.handles);
    if (outcome.handles.length === count) break;
  }
  for (let tick = 0; tick < 20; tick++) await settle();
  acting = false;
  sim.heal();
  for (let tick = 0; tick < 5; tick++) await settle();
  paused = await pausedForApproval(store);
  outcome.paused = paused;

  const violations = await checkInvariants({
    schedule,
    store,
    runId: RUN_ID,
    published,
    landed: sim.landed,
    faults: sim.faults,
    outcome,
    logs,
    storeAttempts: SIM_STORE_ATTEMPTS,
  });
  const trace = async (): Promise<{
    handles: string[];
    log: DurableRunEvent[];
    published: Record<string, DurableRunEvent[]>;
    [key: string]: unknown;
  }> => ({
    handles: (await Promise.all(outcome.handles)).map(
      (h) =>
        `${h.name} ${h.run ? `${h.run.revision} ${h.run.status} t${h.run.fencingToken}` : String(h.error)}`,
    ),
    faults: sim.faults,
    landed: sim.landed,
    logs,
    log: await store.readEvents(RUN_ID).catch(() => []),
    published: Object.fromEntries(
      [...published].map(([name, events]) => [
        name,
        events.filter((event): event is DurableRunEvent => event.type !== 'run-delta'),
      ]),
    ),
  });
  return { schedule, violations, trace };
}

/** The snapshot as a client reads it: retried through the faulty store until it answers. */
async function readSnapshot(store: ReturnType<typeof createAgentRuntimeStore>) {
  for (let attempt = 0; attempt < 50; attempt++) {
    try {
      return await store.getSnapshot(RUN_ID);
    } catch {
      // The faulty driver threw: a client would retry too.
    }
  }
  return null;
}

async function pausedForApproval(store: ReturnType<typeof createAgentRuntimeStore>) {
  const snapshot = await readSnapshot(store);
  if (snapshot?.run.status !== 'running') return false;
  const operation = snapshot.run.lastOperation;
  if (operation && !['completed', 'failed', 'cancelled'].includes(operation.phase)) return false;
  return (snapshot.assistant?.message.parts ?? []).some(
    (part) => 'state' in part && part.state === 'approval-requested',
  );
}
