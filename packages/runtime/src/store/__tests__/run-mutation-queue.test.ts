import type { AgentRun } from '@runlight/protocol';
import { assistantMessage, modelRequest } from '@runlight/test-utils';
import { describe, expect, it } from 'vitest';
import { InvalidTransitionError } from '../../errors/invalid-transition-error';
import { StoreConflictError } from '../../errors/store-conflict-error';
import { seededRandom, withLatency } from '../../testing/with-latency';
import { type AgentRuntimeStore, createAgentRuntimeStore } from '../agent-runtime-store';
import { createMemoryDriver } from '../driver/memory-driver';
import { OwnedRun } from '../owned-run';
import { RunMutationQueue } from '../run-mutation-queue';

/** The two writers of one run the ADR names, as independent schedules. */
interface Writers {
  checkpoint(text: string): Promise<unknown>;
  operation(operation: ReturnType<typeof modelRequest>): Promise<unknown>;
}

async function setUp(seed: number) {
  const store = createAgentRuntimeStore(
    withLatency(createMemoryDriver(), { minMs: 0, maxMs: 1, seed }),
  );
  const runId = `race-${seed}`;
  await store.createRun({ runId });
  const acquired = await store.acquireRun(runId, { owner: 'worker', leaseMs: 60_000 });
  return { store, runId, acquired };
}

/** Through the per-run queue: each mutation reads the revision inside its turn. */
function queued(store: AgentRuntimeStore, acquired: AgentRun, queue: RunMutationQueue): Writers {
  const owned = new OwnedRun(store, acquired, { queue });
  return {
    checkpoint: (text) => owned.saveAssistantCheckpoint(assistantMessage(text)),
    operation: (operation) => owned.recordRunOperation(operation),
  };
}

/** Around the queue: each mutation names the revision it read before its own await. */
function unqueued(store: AgentRuntimeStore, acquired: AgentRun): Writers {
  let latest = acquired;
  const guard = () => ({
    owner: 'worker',
    fencingToken: acquired.fencingToken,
    expectedRevision: latest.revision,
  });
  return {
    checkpoint: async (text) => {
      latest = await store.saveAssistantCheckpoint(acquired.id, guard(), assistantMessage(text));
    },
    operation: async (operation) => {
      latest = await store.recordRunOperation(acquired.id, guard(), operation);
    },
  };
}

/**
 * The ADR's race: a checkpoint writer and an operation admission run on independent schedules
 * (each with its own seeded pauses) within one run, three steps long.
 */
let consequences = 0;

async function race(writers: Writers, seed: number): Promise<number> {
  const random = seededRandom(seed * 7919);
  const pause = () => new Promise((resolve) => setTimeout(resolve, random() < 0.5 ? 0 : 1));
  let conflicts = 0;
  const guarded = async (write: () => Promise<unknown>) => {
    try {
      await write();
    } catch (error) {
      // A lost write also breaks the phases after it (a first-output with no started);
      // those count as the conflict's consequences, not as further conflicts.
      if (StoreConflictError.isInstance(error)) conflicts++;
      else if (!InvalidTransitionError.isInstance(error)) throw error;
      else consequences++;
    }
  };
  const checkpoints = (async () => {
    for (let index = 0; index < 6; index++) {
      await pause();
      await guarded(() => writers.checkpoint(`part ${index}`));
    }
  })();
  const admissions = (async () => {
    for (let step = 0; step < 3; step++) {
      await pause();
      await guarded(() => writers.operation(modelRequest(step)));
      await guarded(() => writers.operation(modelRequest(step, 'first-output')));
      await guarded(() =>
        writers.operation({
          ...modelRequest(step, 'completed'),
          firstOutputAt: modelRequest(step, 'first-output').firstOutputAt,
        }),
      );
    }
  })();
  await Promise.all([checkpoints, admissions]);
  return conflicts;
}

async function runSeeds(
  count: number,
  concurrency: number,
  body: (seed: number) => Promise<number>,
) {
  let total = 0;
  for (let start = 0; start < count; start += concurrency) {
    const batch = Array.from({ length: Math.min(concurrency, count - start) }, (_, i) =>
      body(start + i),
    );
    for (const conflicts of await Promise.all(batch)) total += conflicts;
  }
  return total;
}

describe('the per-run mutation queue (ADR 0174 race)', () => {
  it('gives 0 conflicts over 1,000 seeded runs on a store answering on later ticks', async () => {
    consequences = 0;
    const queue = new RunMutationQueue();
    const conflicts = await runSeeds(1_000, 100, async (seed) => {
      const { store, runId, acquired } = await setUp(seed);
      const found = await race(queued(store, acquired, queue), seed);
      const events = await store.readEvents(runId);
      // 2 (create, acquire) + 6 checkpoints + 9 operation phases, dense and in order.
      expect(events.map((event) => event.revision)).toEqual(
        Array.from({ length: 17 }, (_, i) => i + 1),
      );
      return found;
    });
    expect(conflicts).toBe(0);
    expect(consequences).toBe(0);
    expect(queue.activeRuns).toBe(0);
  });

  it('is what prevents them: the same schedules issued around the queue conflict', async () => {
    const conflicts = await runSeeds(200, 100, async (seed) => {
      const { store, acquired } = await setUp(seed);
      return race(unqueued(store, acquired), seed);
    });
    expect(conflicts).toBeGreaterThan(0);
  });

  it('runs different runs in parallel, not behind one global lock', async () => {
    const queue = new RunMutationQueue();
    const order: string[] = [];
    let release: () => void = () => {};
    const blocked = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = queue.enqueue('run-a', async () => {
      order.push('a:start');
      await blocked;
      order.push('a:end');
    });
    const fast = queue.enqueue('run-b', async () => {
      order.push('b');
    });
    await fast;
    expect(order).toEqual(['a:start', 'b']);
    release();
    await slow;
  });

  it('keeps order within a run and continues after a failed task', async () => {
    const queue = new RunMutationQueue();
    const order: number[] = [];
    const first = queue.enqueue('run', async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      order.push(1);
      throw new Error('first fails');
    });
    const second = queue.enqueue('run', async () => {
      order.push(2);
      return 'second';
    });
    await expect(first).rejects.toThrow('first fails');
    await expect(second).resolves.toBe('second');
    expect(order).toEqual([1, 2]);
  });
});
