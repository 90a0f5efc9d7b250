import { describe, expect, it, vi } from 'vitest';
import { createDatabaseClock } from '../database-clock';

describe('createDatabaseClock: the database’s time carried by the monotonic clock', () => {
  it('reads the database once when it has no reading, then answers from memory', async () => {
    const read = vi.fn(async () => 1_000_000);
    const clock = createDatabaseClock(read);
    const [a, b] = await Promise.all([clock.now(), clock.now()]);
    expect(read).toHaveBeenCalledTimes(1);
    expect(Date.parse(a)).toBeGreaterThanOrEqual(1_000_000);
    expect(Date.parse(b)).toBeGreaterThanOrEqual(1_000_000);
    // Never the process's wall clock (here decades later than the reading).
    expect(Date.parse(await clock.now())).toBeLessThan(1_000_000 + 60_000);
    expect(read).toHaveBeenCalledTimes(1);
  });

  it('keeps the reading carried furthest: a late answer never moves the time back', async () => {
    const clock = createDatabaseClock(async () => 5_000_000);
    clock.observe(5_000_000);
    clock.observe(4_000_000); // an older reading (its answer was slow): ignored
    expect(Date.parse(await clock.now())).toBeGreaterThanOrEqual(5_000_000);
    clock.observe('7000000'); // numeric text, as a driver may return float8
    expect(Date.parse(await clock.now())).toBeGreaterThanOrEqual(7_000_000);
  });

  it('ignores a reading that is no number, and refuses to answer without any', async () => {
    const clock = createDatabaseClock(async () => null);
    clock.observe('not a time');
    clock.observe(Number.NaN);
    await expect(clock.now()).rejects.toThrow('no clock reading');
  });

  it('reads again once its reading is stale', async () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    try {
      const read = vi.fn(async () => 9_000_000);
      const clock = createDatabaseClock(read);
      await clock.now();
      vi.advanceTimersByTime(11_000);
      await clock.now();
      expect(read).toHaveBeenCalledTimes(2);
    } finally {
      vi.useRealTimers();
    }
  });
});
