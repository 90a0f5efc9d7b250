import { describe, expect, it } from 'vitest';
import { StoreRecordError } from '../../errors/store-record-error';
import { createAgentRuntimeStore } from '../agent-runtime-store';
import { createMemoryDriver } from '../driver/memory-driver';

/** A memory driver with a clock of its own, an hour off the process's. */
function driverWithClock(read: () => Promise<string>) {
  return { ...createMemoryDriver(), now: read };
}

describe('the store takes lease times from one clock', () => {
  it('the driver’s own when it has one, not the process’s', async () => {
    const hourAhead = () => new Date(Date.now() + 3_600_000).toISOString();
    const store = createAgentRuntimeStore(driverWithClock(async () => hourAhead()));
    await store.createRun({ runId: 'run-1' });
    const run = await store.acquireRun('run-1', { owner: 'a', leaseMs: 1_000 });
    expect(Date.parse(run.updatedAt)).toBeGreaterThan(Date.now() + 3_000_000);
    expect(Date.parse(run.leaseExpiresAt ?? '')).toBe(Date.parse(run.updatedAt) + 1_000);
    // Expired on the process's clock an hour from now, not on the driver's: not expired.
    expect(await store.findExpiredRuns()).toEqual([]);
    expect(await store.findExpiredRuns({ now: new Date(Date.now() + 7_200_000) })).toHaveLength(1);
    expect(Date.parse((await store.now?.())?.toISOString() ?? '')).toBeGreaterThan(
      Date.now() + 3_000_000,
    );
  });

  it('an explicit `now` (tests) wins over the driver’s', async () => {
    const at = new Date('2026-01-01T00:00:00.000Z');
    const store = createAgentRuntimeStore(
      driverWithClock(async () => 'never read'),
      {
        now: () => at,
      },
    );
    expect((await store.createRun({ runId: 'run-1' })).createdAt).toBe(at.toISOString());
  });

  it('refuses a clock reading that is no timestamp, with a typed error, and writes nothing', async () => {
    const driver = driverWithClock(async () => 'yesterday-ish');
    const store = createAgentRuntimeStore(driver);
    await expect(store.createRun({ runId: 'run-1' })).rejects.toSatisfy(
      (error: unknown) => error instanceof StoreRecordError && error.what === 'clock reading',
    );
    expect(await driver.readEvents('run-1', 0)).toEqual([]);
  });
});
