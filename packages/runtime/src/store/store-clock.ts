import { StoreRecordError } from '../errors/store-record-error';
import type { AgentRuntimeDriver } from './driver/driver';

/** The clock a store takes every lease time and expiry decision from. */
export type StoreClock = () => Promise<Date>;

/**
 * The one clock that decides leases: the caller's `now` when given (tests), else the driver's
 * own (`AgentRuntimeDriver.now`: a database server's), else the process's. With a shared
 * storage's clock, a process whose wall clock is wrong can neither take a live run nor lose its
 * own: every lease expiry is written and compared in the storage's time.
 *
 * @example
 * const clock = storeClock(createMemoryDriver());
 * const at = await clock(); // the process's time: the memory driver has no clock of its own
 */
export function storeClock(driver: AgentRuntimeDriver, now?: () => Date): StoreClock {
  if (now) return async () => now();
  const read = driver.now;
  if (!read) return async () => new Date();
  return async () => {
    const raw = await read.call(driver);
    const time = typeof raw === 'string' ? Date.parse(raw) : Number.NaN;
    if (Number.isFinite(time)) return new Date(time);
    // A trust boundary: a driver's answer decides leases, so an unreadable one is refused.
    throw new StoreRecordError('(clock)', 'clock reading', [
      { path: 'now', message: `is not a timestamp: ${JSON.stringify(raw)?.slice(0, 40)}` },
    ]);
  };
}
