/**
 * Issue 2 benchmark: the cost of the store's rules over the bare driver, in one run.
 *
 *   pnpm bench --project runtime store.bench
 *
 * Vitest prints each group's ops/s and how many times faster the fastest entry is: the ratio
 * "raw compareAndSet : recordRunOperation through the store" is the figure (goal ≤ 2×), and
 * "1 run : 100 concurrent runs" per mutation shows the queue is per run, not a global lock.
 */
import type { RunOperation } from '@runlight/protocol';
import { bench, describe } from 'vitest';
import { createAgentRuntimeStore } from '../src/store/agent-runtime-store';
import { createMemoryDriver } from '../src/store/driver/memory-driver';
import { reduceRecordRunOperation } from '../src/store/log/reducer';
import type { Mutation, StoredRun } from '../src/store/log/stored-run';
import { OwnedRun } from '../src/store/owned-run';
import { RunMutationQueue } from '../src/store/run-mutation-queue';

const AT = '2026-12-02T12:00:00.000Z';

/** An endless, valid sequence of operation phases: started → first-output → completed → next. */
function operations() {
  let index = 0;
  return (): RunOperation => {
    const step = Math.floor(index / 3);
    const phase = (['started', 'first-output', 'completed'] as const)[index % 3]!;
    index++;
    const operation: RunOperation = {
      id: `model-request:step-${step}`,
      kind: 'model-request',
      phase,
      step,
      startedAt: AT,
    };
    if (phase !== 'started') operation.firstOutputAt = AT;
    if (phase === 'completed') operation.endedAt = AT;
    return operation;
  };
}

async function ownedRun(runId: string, queue = new RunMutationQueue()) {
  const driver = createMemoryDriver();
  const store = createAgentRuntimeStore(driver);
  await store.createRun({ runId });
  const acquired = await store.acquireRun(runId, { owner: 'bench', leaseMs: 3_600_000 });
  return { driver, store, owned: new OwnedRun(store, acquired, { queue }) };
}

describe('one run: recordRunOperation through the store vs raw driver compareAndSet', async () => {
  const viaStore = await ownedRun('bench-store');
  const nextForStore = operations();

  // The baseline is the driver's atomic write alone: the next records are computed up front.
  const raw = await ownedRun('bench-raw');
  const nextForRaw = operations();
  const now = new Date(AT);
  const writes: { expected: number; next: StoredRun; event: Mutation['event'] }[] = [];
  let record = (await raw.driver.load('bench-raw')) as StoredRun;
  for (let i = 0; i < 60_000; i++) {
    const guard = { owner: 'bench', fencingToken: 1, expectedRevision: record.run.revision };
    const { record: next, event } = reduceRecordRunOperation(record, guard, nextForRaw(), now);
    writes.push({ expected: record.run.revision, next, event });
    record = next;
  }
  let cursor = 0;

  bench('raw driver compareAndSet (baseline)', async () => {
    const write = writes[cursor++];
    if (!write) throw new Error('precomputed writes exhausted: raise the count');
    await raw.driver.compareAndSet('bench-raw', write.expected, write.next, [write.event]);
  });

  bench(
    'store.recordRunOperation via OwnedRun (queue + operation validation + reducer + CAS)',
    async () => {
      await viaStore.owned.recordRunOperation(nextForStore());
    },
  );
});

describe('per mutation: 1 run vs 100 concurrent runs (no global lock)', async () => {
  const queue = new RunMutationQueue();
  const single = await ownedRun('bench-single', queue);
  const nextSingle = operations();
  const many = await Promise.all(
    Array.from({ length: 100 }, (_, i) => ownedRun(`bench-many-${i}`, queue)),
  );
  const nextMany = many.map(() => operations());

  bench('1 run, 100 sequential mutations', async () => {
    for (let i = 0; i < 100; i++) await single.owned.recordRunOperation(nextSingle());
  });

  bench('100 runs, 1 mutation each, concurrently', async () => {
    await Promise.all(many.map((run, i) => run.owned.recordRunOperation(nextMany[i]!())));
  });
});
