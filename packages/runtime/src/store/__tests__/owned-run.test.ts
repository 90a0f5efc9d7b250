import { assistantMessage, manualClock, modelRequest } from '@runlight/test-utils';
import { describe, expect, it } from 'vitest';
import { FencingError } from '../../errors/fencing-error';
import { StoreConflictError } from '../../errors/store-conflict-error';
import { createAgentRuntimeStore } from '../agent-runtime-store';
import { createMemoryDriver } from '../driver/memory-driver';
import { OwnedRun } from '../owned-run';

async function setUp() {
  const clock = manualClock();
  const store = createAgentRuntimeStore(createMemoryDriver(), { now: clock.now });
  await store.createRun({ runId: 'run-1' });
  const acquired = await store.acquireRun('run-1', { owner: 'owner-a', leaseMs: 1_000 });
  return { clock, store, owned: new OwnedRun(store, acquired) };
}

describe('OwnedRun', () => {
  it('names the revision its predecessor produced, for mutations issued without awaiting', async () => {
    const { store, owned } = await setUp();
    const writes = [
      owned.recordRunOperation(modelRequest(0)),
      owned.saveAssistantCheckpoint(assistantMessage('a')),
      owned.recordRunOperation(modelRequest(0, 'first-output')),
      owned.saveAssistantCheckpoint(assistantMessage('ab')),
    ];
    const runs = await Promise.all(writes);
    expect(runs.map((run) => run.revision)).toEqual([3, 4, 5, 6]);
    expect(owned.run.revision).toBe(6);
    expect((await store.getRun('run-1')).revision).toBe(6);
  });

  it('retries a terminal commit that lost a revision race to another writer of the same owner', async () => {
    const { store, owned } = await setUp();
    // Another handle of the same owner and token writes behind this handle's back.
    const other = new OwnedRun(store, owned.run);
    await other.saveAssistantCheckpoint(assistantMessage('elsewhere'));
    const ended = await owned.commitTerminal({ status: 'completed' });
    expect(ended).toMatchObject({ status: 'completed', revision: 4 });
    // Repeating it is recognised as a duplicate: nothing more is appended.
    await owned.commitTerminal({ status: 'completed' });
    expect((await store.readEvents('run-1')).length).toBe(4);
  });

  it('stays lost after a FencingError and never writes again', async () => {
    const { clock, store, owned } = await setUp();
    clock.advance(1_001);
    await store.acquireRun('run-1', { owner: 'owner-b', leaseMs: 1_000 });
    await expect(owned.recordRunOperation(modelRequest(0))).rejects.toSatisfy(
      FencingError.isInstance,
    );
    expect(owned.lost).not.toBeNull();
    await expect(owned.saveAssistantCheckpoint(assistantMessage('x'))).rejects.toBe(owned.lost);
    await expect(owned.commitTerminal({ status: 'cancelled' })).rejects.toBe(owned.lost);
    const events = await store.readEvents('run-1');
    expect(events.map((event) => event.type)).toEqual(['run-status', 'run-status', 'run-status']);
  });
});

describe('the store remembering its last write', () => {
  it('still sees a write another store instance made to the same driver', async () => {
    const driver = createMemoryDriver();
    const here = createAgentRuntimeStore(driver);
    const there = createAgentRuntimeStore(driver);
    await here.createRun({ runId: 'shared' });
    const acquired = await here.acquireRun('shared', { owner: 'owner-a', leaseMs: 60_000 });
    const guard = { owner: 'owner-a', fencingToken: 1, expectedRevision: acquired.revision };
    await there.saveAssistantCheckpoint('shared', guard, assistantMessage('there'));
    await expect(here.recordRunOperation('shared', guard, modelRequest(0))).rejects.toSatisfy(
      StoreConflictError.isInstance,
    );
    const snapshot = await here.getSnapshot('shared');
    expect(snapshot.revision).toBe(3);
    expect(snapshot.run.lastOperation).toBeNull();
  });
});
