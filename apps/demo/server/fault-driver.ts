import type { AgentRuntimeDriver } from '@runlight/runtime';
import { type StoredRunEvent, wholeStoredEvent } from '@runlight/runtime/driver';

/** A driver a scenario can break on purpose, one run at a time. */
export interface FaultDriver extends AgentRuntimeDriver {
  /**
   * The next compare-and-set of `runId` whose events match `when` is answered "revision did
   * not match", as when another writer got there first.
   */
  loseCompareAndSet(runId: string, when: (events: readonly StoredRunEvent[]) => boolean): void;
  /**
   * Calls for `runId` hang until `ms` have passed — a worker cut off from its store (a network
   * partition, a long pause) for longer than its lease.
   */
  partition(runId: string, ms: number): void;
  /**
   * The compare-and-set of `runId` whose events match `when` is stored, and then the worker is
   * gone: that call and every later one for the run never answer — a process killed right
   * after its write reached the store.
   */
  crashAfter(runId: string, when: (events: readonly StoredRunEvent[]) => boolean): void;
}

/**
 * Fault injection for the playground's storage-conflict, lease-stolen and worker-crash scenarios. Only the
 * runs a scenario armed are affected; everything else passes straight through.
 *
 * @example
 * const faults = faultDriver(shared);
 * faults.loseCompareAndSet('run-1', ([event]) => event?.type === 'run-operation');
 */
export function faultDriver(driver: AgentRuntimeDriver): FaultDriver {
  const losing = new Map<string, (events: readonly StoredRunEvent[]) => boolean>();
  const partitionedUntil = new Map<string, number>();
  const crashing = new Map<string, (events: readonly StoredRunEvent[]) => boolean>();
  const crashed = new Set<string>();
  const never = new Promise<never>(() => {});

  const healed = async (runId: string): Promise<void> => {
    const until = partitionedUntil.get(runId);
    if (until === undefined) return;
    const wait = until - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    if (partitionedUntil.get(runId) === until) partitionedUntil.delete(runId);
  };

  return {
    async load(runId) {
      if (crashed.has(runId)) return never;
      await healed(runId);
      return driver.load(runId);
    },
    async compareAndSet(runId, expected, next, events) {
      if (crashed.has(runId)) return never;
      await healed(runId);
      const crash = crashing.get(runId);
      if (crash?.(events.map(wholeStoredEvent))) {
        crashing.delete(runId);
        crashed.add(runId);
        await driver.compareAndSet(runId, expected, next, events);
        return never;
      }
      const when = losing.get(runId);
      if (when?.(events.map(wholeStoredEvent))) {
        losing.delete(runId);
        return false;
      }
      return driver.compareAndSet(runId, expected, next, events);
    },
    async readEvents(runId, after) {
      if (crashed.has(runId)) return never;
      await healed(runId);
      return driver.readEvents(runId, after);
    },
    // Not a call of one run: a partition of one run does not hide the others' expiry.
    findExpiredRuns: (query) => driver.findExpiredRuns(query),
    loseCompareAndSet(runId, when) {
      losing.set(runId, when);
    },
    crashAfter(runId, when) {
      crashing.set(runId, when);
    },
    partition(runId, ms) {
      partitionedUntil.set(runId, Date.now() + ms);
    },
  };
}
