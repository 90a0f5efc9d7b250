import { expect, it } from 'vitest';
import { StoreRecordError } from '../index';
import type { ConformanceContext } from './conformance-context';

/**
 * Durable control requests (cancels, approval answers): each request id is recorded at most
 * once, read back validated while pending, and claimed by exactly one of concurrent claimers.
 */
export function describeControlRequestConformance(ctx: ConformanceContext): void {
  const requests = () => {
    const control = ctx.store.controlRequests;
    if (!control) throw new Error('This driver stores no control requests');
    return control;
  };

  it('records a control request once per id and reads the pending ones of the runs asked', async () => {
    const a = ctx.runId();
    const b = ctx.runId();
    await ctx.store.createRun({ runId: a });
    await ctx.store.createRun({ runId: b });
    expect(await requests().record({ runId: a, requestId: 'cancel', kind: 'cancel' })).toBe(true);
    expect(await requests().record({ runId: a, requestId: 'cancel', kind: 'cancel' })).toBe(false);
    const approvals = [{ approvalId: 'ap-1', approved: true, reason: 'ok' }];
    await requests().record({
      runId: b,
      requestId: 'approvals:ap-1',
      kind: 'approvals',
      approvals,
    });
    expect(await requests().pending([a])).toEqual([
      { runId: a, requestId: 'cancel', kind: 'cancel', createdAt: expect.any(String) },
    ]);
    expect((await requests().pending([a, b])).map((request) => request.requestId).sort()).toEqual([
      'approvals:ap-1',
      'cancel',
    ]);
    expect((await requests().pending([b]))[0]).toMatchObject({ kind: 'approvals', approvals });
    expect(await requests().pending([])).toEqual([]);
    expect(await requests().pending([ctx.runId()])).toEqual([]);
  });

  it('lets exactly one of concurrent claims of a request win; a claimed request is no longer pending', async () => {
    const id = ctx.runId();
    await ctx.store.createRun({ runId: id });
    await requests().record({ runId: id, requestId: 'cancel', kind: 'cancel' });
    const claims = await Promise.all([
      requests().claim(id, 'cancel'),
      requests().claim(id, 'cancel'),
      requests().claim(id, 'cancel'),
    ]);
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await requests().pending([id])).toEqual([]);
    expect(await requests().claim(id, 'missing')).toBe(false);
    // A done request keeps its id: recording it again changes nothing.
    expect(await requests().record({ runId: id, requestId: 'cancel', kind: 'cancel' })).toBe(false);
    expect(await requests().pending([id])).toEqual([]);
  });

  it('refuses a malformed request before storing it, and a corrupt stored one when read', async () => {
    const id = ctx.runId();
    await expect(
      requests().record({ runId: id, requestId: '', kind: 'cancel' }),
    ).rejects.toBeInstanceOf(Error);
    await expect(
      requests().record({ runId: id, requestId: 'x', kind: 'approvals', approvals: [] }),
    ).rejects.toBeInstanceOf(Error);
    expect(await requests().pending([id])).toEqual([]);
    const bad = {
      runId: id,
      requestId: 'bad',
      kind: 'explode',
      createdAt: new Date().toISOString(),
    };
    await ctx.target.driver.appendControlRequest?.(id, bad as never);
    await expect(requests().pending([id])).rejects.toSatisfy(StoreRecordError.isInstance);
  });

  it('finds the requests whose effect is unknown: pending past their wait, claimed and never applied, of runs that have not ended', async () => {
    if (!requests().tracksEffects) return;
    const paused = ctx.runId();
    const leased = await ctx.acquired();
    const gone = ctx.runId();
    await ctx.store.createRun({ runId: paused });
    await ctx.store.createRun({ runId: gone });
    for (const runId of [paused, leased.id, gone]) {
      await requests().record({ runId, requestId: 'cancel', kind: 'cancel' });
    }
    const orphans = (query: { pendingForMs: number; claimedForMs: number }) =>
      requests().stale({ ...query, limit: 10 });
    // Too young to be anybody's but their runs' own processes'.
    expect(await orphans({ pendingForMs: 1_000, claimedForMs: 1_000 })).toEqual([]);
    ctx.clock.advance(1_001);
    // Runs nobody leases only; the leased one's executor applies its own.
    const found = await orphans({ pendingForMs: 1_000, claimedForMs: 1_000 });
    expect(found.map((request) => request.runId).sort()).toEqual([gone, paused].sort());
    expect(found[0]).toMatchObject({ requestId: 'cancel', kind: 'cancel', claimedAt: null });
    // With run ids: of those runs, leased or not.
    expect(
      (
        await requests().stale({ runIds: [leased.id], pendingForMs: 0, claimedForMs: 0, limit: 10 })
      ).map((request) => request.runId),
    ).toEqual([leased.id]);

    // Claimed: not stale until its claim is old; applied: never again.
    expect(await requests().claim(paused, 'cancel')).toBe(true);
    expect((await orphans({ pendingForMs: 0, claimedForMs: 1_000 })).map((r) => r.runId)).toEqual([
      gone,
    ]);
    ctx.clock.advance(1_001);
    const [stale] = (await orphans({ pendingForMs: 0, claimedForMs: 1_000 })).filter(
      (request) => request.runId === paused,
    );
    expect(stale?.claimedAt).toEqual(expect.any(String));
    // Claimed again by exactly one of concurrent reclaimers, and then young again.
    const reclaims = await Promise.all(
      [0, 1, 2].map(() => requests().claim(paused, 'cancel', stale!.claimedAt)),
    );
    expect(reclaims.filter(Boolean)).toHaveLength(1);
    expect(
      (await orphans({ pendingForMs: 0, claimedForMs: 1_000 })).map((r) => r.runId),
    ).not.toContain(paused);
    await requests().applied(paused, 'cancel');
    ctx.clock.advance(5_000);
    expect(
      (await orphans({ pendingForMs: 0, claimedForMs: 1_000 })).map((r) => r.runId),
    ).not.toContain(paused);
    expect(await requests().claim(paused, 'cancel', stale!.claimedAt)).toBe(false);

    // A run that ended has nothing stale.
    await ctx.store
      .acquireRun(gone, { owner: 'owner-b', leaseMs: 1_000 })
      .then((run) =>
        ctx.store.commitTerminal(
          gone,
          { owner: 'owner-b', fencingToken: run.fencingToken, expectedRevision: run.revision },
          { status: 'cancelled' },
        ),
      );
    expect(await orphans({ pendingForMs: 0, claimedForMs: 0 })).toEqual([]);
  });

  it('sweeps the requests of runs that ended long enough ago, and only those', async () => {
    if (!ctx.target.driver.deleteEndedControlRequests) return;
    const live = ctx.runId();
    const done = await ctx.acquired();
    await ctx.store.createRun({ runId: live });
    for (const runId of [live, done.id]) {
      await requests().record({ runId, requestId: 'cancel', kind: 'cancel' });
    }
    await ctx.store.commitTerminal(done.id, done.guard, { status: 'cancelled' });
    // Ended just now: kept (a late answer still finds its id taken).
    expect(await requests().sweep({ endedForMs: 1_000, limit: 100 })).toBe(0);
    ctx.clock.advance(1_001);
    expect(await requests().sweep({ endedForMs: 1_000, limit: 100 })).toBe(1);
    expect(await requests().pending([live])).toHaveLength(1);
    expect(await requests().record({ runId: done.id, requestId: 'cancel', kind: 'cancel' })).toBe(
      true,
    );
  });
}
