import type { AgentRuntimeDriver, StoredRun } from '@runlight/runtime';

/** A driver a scenario can break on purpose, one run at a time. */
export interface FaultDriver extends AgentRuntimeDriver {
  /**
   * The next compare-and-set of `runId` whose new record matches `when` is answered "revision
   * did not match", as when another writer got there first.
   */
  loseCompareAndSet(runId: string, when: (next: StoredRun) => boolean): void;
  /**
   * Calls for `runId` hang until `ms` have passed — a worker cut off from its store (a network
   * partition, a long pause) for longer than its lease.
   */
  partition(runId: string, ms: number): void;
}

/**
 * Fault injection for the playground's storage-conflict and lease-stolen scenarios. Only the
 * runs a scenario armed are affected; everything else passes straight through.
 *
 * @example
 * const faults = faultDriver(shared);
 * faults.loseCompareAndSet('run-1', (next) => next.run.lastOperation?.phase === 'first-output');
 */
export function faultDriver(driver: AgentRuntimeDriver): FaultDriver {
  const losing = new Map<string, (next: StoredRun) => boolean>();
  const partitionedUntil = new Map<string, number>();

  const healed = async (runId: string): Promise<void> => {
    const until = partitionedUntil.get(runId);
    if (until === undefined) return;
    const wait = until - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    if (partitionedUntil.get(runId) === until) partitionedUntil.delete(runId);
  };

  return {
    async load(runId) {
      await healed(runId);
      return driver.load(runId);
    },
    async compareAndSet(runId, expected, next, events) {
      await healed(runId);
      const when = losing.get(runId);
      if (when?.(next)) {
        losing.delete(runId);
        return false;
      }
      return driver.compareAndSet(runId, expected, next, events);
    },
    async readEvents(runId, after) {
      await healed(runId);
      return driver.readEvents(runId, after);
    },
    // Not a call of one run: a partition of one run does not hide the others' expiry.
    findExpiredRuns: (query) => driver.findExpiredRuns(query),
    loseCompareAndSet(runId, when) {
      losing.set(runId, when);
    },
    partition(runId, ms) {
      partitionedUntil.set(runId, Date.now() + ms);
    },
  };
}
