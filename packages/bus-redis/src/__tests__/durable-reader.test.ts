import { createAgentRuntimeStore, createMemoryDriver } from '@runlight/runtime';
import { describe, expect, it } from 'vitest';
import { DurableReader } from '../durable-reader';
import { startRun } from './bus-fixtures';

describe('DurableReader (the Redis bus reading pointers from the store)', () => {
  it('reads a run’s log once for a row of pointers, and gives each read exactly its range', async () => {
    const store = createAgentRuntimeStore(createMemoryDriver());
    const run = await startRun(store);
    for (let step = 0; step < 8; step++) await run.operation(); // revisions 3..10
    let reads = 0;
    const reader = new DurableReader({
      readEvents: (runId, options) => {
        reads++;
        return store.readEvents(runId, options);
      },
    });
    const ranges: number[][] = [];
    // A stream read from its start: one pointer after another.
    ranges.push((await reader.read(run.runId, 0, 1)).map((event) => event.revision));
    for (let revision = 2; revision <= 10; revision++) {
      ranges.push((await reader.read(run.runId, revision - 1, revision)).map((e) => e.revision));
    }
    expect(ranges).toEqual(Array.from({ length: 10 }, (_, index) => [index + 1]));
    expect(reads).toBe(1);
    // A read that starts elsewhere, or past what was read ahead, asks the store again.
    expect((await reader.read(run.runId, 4, 6)).map((event) => event.revision)).toEqual([5, 6]);
    await run.operation(); // revision 11
    expect((await reader.read(run.runId, 10, 11)).map((event) => event.revision)).toEqual([11]);
    expect(reads).toBe(3);
  });
});
