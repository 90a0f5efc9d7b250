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
}
