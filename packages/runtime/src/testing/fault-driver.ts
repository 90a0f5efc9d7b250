import type { AgentRuntimeDriver } from '../store/driver/driver';
import type { StoredRunEvent } from '../store/log/evolve-run';
import { wholeStoredEvent } from '../store/log/packed-event';

/** Which driver call a fault hits, and whether it throws before the call or after it landed. */
export interface DriverFault {
  call: 'load' | 'compareAndSet' | 'readEvents';
  /** `before`: nothing happens, the call throws; `after`: the call lands, then throws. */
  when: 'before' | 'after';
  /**
   * For `compareAndSet`: only a write whose event matches (default: any write); it sees the
   * whole event (without its `runId`), whichever form the store passes.
   */
  match?: (event: StoredRunEvent) => boolean;
  /** How many matching calls fail (default 1; `Infinity` for an outage). */
  times?: number;
}

/** The error a faulty driver throws: a dropped connection, never a typed store error. */
export class InjectedDriverError extends Error {
  override readonly name = 'InjectedDriverError';
  readonly code = 'ECONNRESET';
}

export interface FaultyDriver extends AgentRuntimeDriver {
  /** Queues a fault; the first matching call of its kind fails. */
  inject(fault: DriverFault): void;
  /** Faults that fired so far. */
  readonly fired: number;
  /** Removes every queued fault (an outage ends). */
  heal(): void;
}

/**
 * A driver that fails the way real ones do: a call throws before it reached the database, or
 * after its write landed and before the answer came back (a dropped connection). The error text
 * holds a connection string, so a test can check it never reaches a record or an event.
 *
 * @example
 * const driver = faultyDriver(createMemoryDriver());
 * driver.inject({ call: 'compareAndSet', when: 'after', match: (e) => e.type === 'run-status' && e.change === 'completed' });
 */
export function faultyDriver(inner: AgentRuntimeDriver): FaultyDriver {
  let faults: (DriverFault & { left: number })[] = [];
  let fired = 0;
  const take = (call: DriverFault['call'], event?: StoredRunEvent) => {
    const fault = faults.find(
      (candidate) =>
        candidate.call === call &&
        candidate.left > 0 &&
        (candidate.match === undefined || (event !== undefined && candidate.match(event))),
    );
    if (!fault) return undefined;
    fault.left--;
    fired++;
    if (fault.left <= 0) faults = faults.filter((candidate) => candidate !== fault);
    return fault;
  };
  const error = () =>
    new InjectedDriverError('connection reset: postgres://app:hunter2@db.internal/runs');
  const around = async <T>(fault: DriverFault | undefined, call: () => Promise<T>) => {
    if (fault?.when === 'before') throw error();
    const result = await call();
    if (fault?.when === 'after') throw error();
    return result;
  };
  return {
    inject(fault) {
      faults.push({ ...fault, left: fault.times ?? 1 });
    },
    get fired() {
      return fired;
    },
    heal() {
      faults = [];
    },
    load: (runId) => around(take('load'), () => inner.load(runId)),
    compareAndSet: (runId, expected, next, events, head) =>
      around(take('compareAndSet', events[0] && wholeStoredEvent(events[0])), () =>
        inner.compareAndSet(runId, expected, next, events, head),
      ),
    readEvents: (runId, after) => around(take('readEvents'), () => inner.readEvents(runId, after)),
    findExpiredRuns: (query) => inner.findExpiredRuns(query),
  };
}
