import { expect, it, vi } from 'vitest';
import { createAgentRuntimeStore, FencingError } from '../index';
import type { ConformanceContext } from './conformance-context';

/**
 * A driver with a clock of its own (`AgentRuntimeDriver.now`, a database server's) decides
 * leases on it: a store of a process whose wall clock is a minute wrong writes lease times in
 * the driver's time, and neither takes a live lease nor finds it expired. A driver without one
 * (the memory driver: one process) uses the process's.
 */
export function describeClockConformance(ctx: ConformanceContext): void {
  it('writes and decides leases on the driver’s own clock, whatever the process’s says', async () => {
    const { driver } = ctx.target;
    const clock = driver.now?.bind(driver);
    const read = async () => (clock ? Date.parse(await clock()) : Date.now());
    const before = await read();
    const id = ctx.runId();
    const store = createAgentRuntimeStore(driver);
    await store.createRun({ runId: id });
    const run = await store.acquireRun(id, { owner: 'owner-a', leaseMs: 30_000 });
    const after = await read();
    const at = Date.parse(run.updatedAt);
    expect(at).toBeGreaterThanOrEqual(before);
    expect(at).toBeLessThanOrEqual(after);
    expect(Date.parse(run.leaseExpiresAt ?? '')).toBe(at + 30_000);
    // Without a clock of its own, the process's is the one clock (one process): shown above.
    if (!clock) return;

    // The process's wall clock a minute ahead (its monotonic clock untouched, as NTP leaves it).
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 60_000 });
    try {
      const ahead = createAgentRuntimeStore(driver);
      await expect(ahead.takeOverRun(id, { owner: 'owner-b', leaseMs: 30_000 })).rejects.toSatisfy(
        (error: unknown) => FencingError.isInstance(error) && error.reason === 'lease-held',
      );
      expect((await ahead.findExpiredRuns()).map((expired) => expired.runId)).not.toContain(id);
      const renewed = await ahead.renewLease(id, {
        owner: 'owner-a',
        fencingToken: run.fencingToken,
        expectedRevision: run.revision,
      });
      // Renewed in the driver's time too: not a minute further than the lease.
      expect(Date.parse(renewed.leaseExpiresAt ?? '')).toBeLessThan(at + 60_000);
    } finally {
      vi.useRealTimers();
    }
  });
}
