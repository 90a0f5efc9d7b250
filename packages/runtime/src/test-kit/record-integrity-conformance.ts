import { assistantMessage, modelRequest } from '@runlight/test-utils';
import { expect, it } from 'vitest';
import { createAgentRuntimeStore, StoreConflictError, StoreRecordError } from '../index';
import type { ConformanceContext } from './conformance-context';

/** A store never writes over what it cannot read: corrupt records and head events. */
export function describeRecordIntegrityConformance(ctx: ConformanceContext): void {
  it('refuses a stored record that does not parse, without overwriting it', async () => {
    const id = ctx.runId();
    await ctx.store.createRun({ runId: id });
    await ctx.target.corrupt(id, { run: { id, status: 'exploded' } });
    await expect(ctx.store.getRun(id)).rejects.toSatisfy(StoreRecordError.isInstance);
    await expect(ctx.store.acquireRun(id, { owner: 'a', leaseMs: 1 })).rejects.toSatisfy(
      StoreRecordError.isInstance,
    );
    expect(await ctx.target.driver.load(id)).toEqual({ run: { id, status: 'exploded' } });
  });

  it('refuses to write on top of a head event that no longer parses, and appends nothing', async () => {
    const { id, guard } = await ctx.acquired();
    const run = await ctx.store.recordRunOperation(id, guard, modelRequest(0));
    // The store wrote the head itself (its write cache holds it); then the row is damaged.
    await ctx.target.corruptEvent(id, run.revision, {
      type: 'run-operation',
      revision: run.revision,
      garbage: true,
    });
    const next = { ...guard, expectedRevision: run.revision };
    await expect(
      ctx.store.saveAssistantCheckpoint(id, next, assistantMessage('on top')),
    ).rejects.toSatisfy(StoreRecordError.isInstance);
    await expect(ctx.store.commitTerminal(id, next, { status: 'completed' })).rejects.toSatisfy(
      StoreRecordError.isInstance,
    );
    // Nothing was appended on top of the damaged row.
    expect((await ctx.target.driver.readEvents(id, 0)).length).toBe(run.revision);
  });

  it('refuses to write on top of a head event rewritten behind the store (a conflict)', async () => {
    const { id, guard } = await ctx.acquired();
    const run = await ctx.store.recordRunOperation(id, guard, modelRequest(0));
    const [head] = (await ctx.target.driver.readEvents(id, run.revision - 1)) as Record<
      string,
      unknown
    >[];
    // Still a valid event, but not the one this store wrote.
    await ctx.target.corruptEvent(id, run.revision, { ...head, at: ctx.clock.plus(5) });
    await expect(
      ctx.store.saveAssistantCheckpoint(
        id,
        { ...guard, expectedRevision: run.revision },
        assistantMessage('on top'),
      ),
    ).rejects.toSatisfy(StoreConflictError.isInstance);
    expect((await ctx.target.driver.readEvents(id, 0)).length).toBe(run.revision);
  });

  it('validates the head event even when the snapshot is at the head', async () => {
    const id = ctx.runId();
    const snapshotEvery = createAgentRuntimeStore(ctx.target.driver, {
      now: ctx.clock.now,
      snapshotEveryEvents: 1,
    });
    await snapshotEvery.createRun({ runId: id });
    const run = await snapshotEvery.acquireRun(id, { owner: 'owner-a', leaseMs: 1_000 });
    await ctx.target.corruptEvent(id, run.revision, { type: 'nonsense', revision: run.revision });
    // A fresh store (no write cache): its load reads the snapshot and validates the head.
    await expect(ctx.store.getRun(id)).rejects.toSatisfy(StoreRecordError.isInstance);
    await expect(
      ctx.store.recordRunOperation(
        id,
        { owner: 'owner-a', fencingToken: run.fencingToken, expectedRevision: run.revision },
        modelRequest(0),
      ),
    ).rejects.toSatisfy(StoreRecordError.isInstance);
    expect((await ctx.target.driver.readEvents(id, 0)).length).toBe(run.revision);
  });
}
