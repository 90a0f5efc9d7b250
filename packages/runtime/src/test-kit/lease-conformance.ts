import { expect, it } from 'vitest';
import { FencingError, InvalidTransitionError } from '../index';
import type { ConformanceContext } from './conformance-context';
import { assistantMessage, modelRequest } from './kit-fixtures';

/** Leases: fencing after an expired lease, finding expired runs, concurrent takeovers, release. */
export function describeLeaseConformance(ctx: ConformanceContext): void {
  it('fences the old owner after a second owner acquires an expired lease', async () => {
    const { id, guard } = await ctx.acquired();
    await expect(ctx.store.acquireRun(id, { owner: 'owner-b', leaseMs: 1_000 })).rejects.toSatisfy(
      (error: unknown) => FencingError.isInstance(error) && error.reason === 'lease-held',
    );
    ctx.clock.advance(1_001);
    const taken = await ctx.store.acquireRun(id, { owner: 'owner-b', leaseMs: 1_000 });
    expect(taken).toMatchObject({ owner: 'owner-b', fencingToken: guard.fencingToken + 1 });
    const before = await ctx.store.getSnapshot(id);
    const stale = { ...guard, expectedRevision: taken.revision };
    await expect(ctx.store.recordRunOperation(id, stale, modelRequest(0))).rejects.toSatisfy(
      FencingError.isInstance,
    );
    await expect(
      ctx.store.saveAssistantCheckpoint(id, stale, assistantMessage('x')),
    ).rejects.toSatisfy(FencingError.isInstance);
    await expect(ctx.store.commitTerminal(id, stale, { status: 'completed' })).rejects.toSatisfy(
      FencingError.isInstance,
    );
    expect(await ctx.store.getSnapshot(id)).toEqual(before);
    expect((await ctx.store.readEvents(id)).length).toBe(before.revision);
  });

  it('finds the runs whose lease expired, oldest expiry first, bounded, and no others', async () => {
    await ctx.store.createRun({ runId: ctx.runId() }); // queued: nobody leases it
    const first = await ctx.acquired();
    ctx.clock.advance(10);
    const second = await ctx.acquired();
    ctx.clock.advance(10);
    const third = await ctx.acquired();
    const ended = await ctx.acquired();
    await ctx.store.commitTerminal(ended.id, ended.guard, { status: 'completed' });
    const paused = await ctx.acquired();
    await ctx.store.releaseLease(paused.id, paused.guard);
    expect(await ctx.store.findExpiredRuns()).toEqual([]);

    ctx.clock.advance(1_000); // first and second expired; third expires exactly now
    const late = await ctx.acquired(); // a live lease
    expect(await ctx.store.findExpiredRuns()).toEqual([
      { runId: first.id, leaseExpiresAt: first.run.leaseExpiresAt },
      { runId: second.id, leaseExpiresAt: second.run.leaseExpiresAt },
      { runId: third.id, leaseExpiresAt: third.run.leaseExpiresAt },
    ]);
    expect((await ctx.store.findExpiredRuns({ limit: 2 })).map((run) => run.runId)).toEqual([
      first.id,
      second.id,
    ]);
    // A renewed lease is no longer expired; the query follows every write of the lease.
    await ctx.store.renewLease(third.id, third.guard);
    expect((await ctx.store.findExpiredRuns()).map((run) => run.runId)).toEqual([
      first.id,
      second.id,
    ]);
    ctx.clock.advance(5_000);
    expect((await ctx.store.findExpiredRuns()).map((run) => run.runId)).toEqual([
      first.id,
      second.id,
      third.id,
      late.id,
    ]);
  });

  it('lets exactly one of two concurrent takeovers of an expired lease win, and counts it', async () => {
    const { id } = await ctx.acquired();
    await expect(ctx.store.takeOverRun(id, { owner: 'owner-b', leaseMs: 1_000 })).rejects.toSatisfy(
      (error: unknown) => FencingError.isInstance(error) && error.reason === 'lease-held',
    );
    ctx.clock.advance(1_000);
    const results = await Promise.allSettled([
      ctx.store.takeOverRun(id, { owner: 'owner-b', leaseMs: 1_000 }),
      ctx.store.takeOverRun(id, { owner: 'owner-c', leaseMs: 1_000 }),
    ]);
    const won = results.filter((result) => result.status === 'fulfilled');
    expect(won).toHaveLength(1);
    const lost = results.find((result) => result.status === 'rejected') as PromiseRejectedResult;
    expect(lost.reason).toSatisfy(
      (error: unknown) => FencingError.isInstance(error) && error.reason === 'lease-held',
    );
    const taken = (
      won[0] as PromiseFulfilledResult<{ run: { owner: string | null }; takeovers: number }>
    ).value;
    expect(taken.takeovers).toBe(1);
    expect(await ctx.store.findExpiredRuns()).toEqual([]);
    ctx.clock.advance(1_000);
    const again = await ctx.store.takeOverRun(id, { owner: 'owner-d', leaseMs: 1_000 });
    expect(again).toMatchObject({ takeovers: 2, run: { owner: 'owner-d' } });
  });

  it('releases a lease: nobody can take the run over, anyone may acquire it', async () => {
    const { id, guard } = await ctx.acquired();
    const released = await ctx.store.releaseLease(id, guard);
    expect(released).toMatchObject({ leaseExpiresAt: null, owner: 'owner-a', status: 'running' });
    expect((await ctx.store.readEvents(id)).at(-1)).toMatchObject({
      type: 'run-status',
      change: 'lease-released',
      leaseExpiresAt: null,
    });
    await expect(ctx.store.takeOverRun(id, { owner: 'owner-b', leaseMs: 1_000 })).rejects.toSatisfy(
      (error: unknown) =>
        InvalidTransitionError.isInstance(error) && error.rule === 'run-not-leased',
    );
    const resumed = await ctx.store.acquireRun(id, { owner: 'owner-b', leaseMs: 1_000 });
    expect(resumed).toMatchObject({ owner: 'owner-b', leaseExpiresAt: ctx.clock.plus(1_000) });
  });

  it('hands a lease off: expired at once, found and taken over without waiting', async () => {
    const { id, guard } = await ctx.acquired();
    const handedOff = await ctx.store.handOffLease(id, guard);
    expect(handedOff).toMatchObject({
      leaseExpiresAt: ctx.clock.plus(0),
      owner: 'owner-a',
      status: 'running',
      revision: guard.expectedRevision + 1,
    });
    expect((await ctx.store.readEvents(id)).at(-1)).toMatchObject({
      type: 'run-status',
      change: 'lease-handed-off',
      leaseExpiresAt: ctx.clock.plus(0),
    });
    expect(await ctx.store.findExpiredRuns()).toContainEqual({
      runId: id,
      leaseExpiresAt: ctx.clock.plus(0),
    });
    const taken = await ctx.store.takeOverRun(id, { owner: 'owner-b', leaseMs: 1_000 });
    expect(taken.run).toMatchObject({ owner: 'owner-b', fencingToken: guard.fencingToken + 1 });
    // A shutdown is no crash: the takeover does not count towards poison runs.
    expect(taken.takeovers).toBe(0);
    await expect(
      ctx.store.handOffLease(id, { ...guard, expectedRevision: taken.run.revision }),
    ).rejects.toSatisfy(FencingError.isInstance);
  });
}
