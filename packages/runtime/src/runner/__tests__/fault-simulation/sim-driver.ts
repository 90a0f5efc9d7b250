import type { DurableRunEvent } from '@runlight/protocol';
import type { AgentRuntimeDriver } from '../../../store/driver/driver';
import { evolveRun } from '../../../store/log/evolve-run';
import { unpackStoredEvent } from '../../../store/log/packed-event';
import type { StoredRun } from '../../../store/log/stored-run';
import { SECRET } from './schedule';

/** A landed write as the driver saw it: the revision and the token it was written under. */
export interface LandedWrite {
  revision: number;
  fencingToken: number;
  owner: string | null;
}

/** What the driver injected during one schedule. */
export interface InjectedFaults {
  /** Driver calls that threw. */
  thrown: number;
  /** The longest run of consecutive calls that threw. */
  longestBurst: number;
  /** The most calls that threw or lost their compare-and-set within `window` consecutive calls. */
  densest: number;
  /** Compare-and-sets reported lost to a foreign writer. */
  conflicts: number;
}

class SimulatedStoreError extends Error {
  override readonly name = 'SimulatedStoreError';
  readonly code = 'ECONNRESET';
}

/**
 * The fault-injecting driver of the simulation: every call may take a few macrotask ticks,
 * start a burst of failures (throw before the call, or after it landed: a lost answer), or —
 * for a compare-and-set — be lost to a foreign writer. Its random draws come from the
 * schedule's seed; `calls` counts calls, so the world can act "after n calls".
 *
 * @example
 * const driver = simDriver(createMemoryDriver(), schedule, random);
 */
export function simDriver(
  inner: AgentRuntimeDriver,
  schedule: { faultRate: number; conflictRate: number; maxLatencyTicks: number; window: number },
  random: () => number,
  onCall: (calls: number) => void,
) {
  let calls = 0;
  let burst = 0;
  let burstMode: 'before' | 'after' = 'before';
  let streak = 0;
  let enabled = true;
  const faults: InjectedFaults = { thrown: 0, longestBurst: 0, densest: 0, conflicts: 0 };
  const failedAt: number[] = [];
  const landed: LandedWrite[] = [];

  const latency = async () => {
    const ticks = Math.floor(random() * (schedule.maxLatencyTicks + 1));
    for (let tick = 0; tick < ticks; tick++) {
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  };
  const decide = (): 'ok' | 'before' | 'after' => {
    calls++;
    onCall(calls);
    if (!enabled) return 'ok';
    if (burst === 0 && random() < schedule.faultRate) {
      // Mostly a dropped connection or two; sometimes an outage longer than the retry budget.
      burst =
        random() < 0.1 ? 10 + Math.floor(random() * 6) : 1 + Math.floor(random() * random() * 5);
      burstMode = random() < 0.5 ? 'before' : 'after';
    }
    if (burst === 0) {
      streak = 0;
      return 'ok';
    }
    burst--;
    faults.thrown++;
    failedAt.push(calls);
    const recent = failedAt.filter((call) => call > calls - schedule.window).length;
    faults.densest = Math.max(faults.densest, recent);
    streak++;
    faults.longestBurst = Math.max(faults.longestBurst, streak);
    return burstMode;
  };
  const fail = () => new SimulatedStoreError(`connection reset (${SECRET})`);

  const folded = new Map<string, StoredRun>();
  const driver: AgentRuntimeDriver = {
    findExpiredRuns: (query) => inner.findExpiredRuns(query),
    async load(runId) {
      const mode = decide();
      await latency();
      if (mode !== 'ok') throw fail();
      return inner.load(runId);
    },
    async readEvents(runId, after) {
      const mode = decide();
      await latency();
      if (mode !== 'ok') throw fail();
      return inner.readEvents(runId, after);
    },
    async compareAndSet(runId, expected, next, events, head) {
      const mode = decide();
      await latency();
      if (mode === 'before') throw fail();
      if (mode === 'ok' && enabled && random() < schedule.conflictRate) {
        faults.conflicts++;
        // A lost compare-and-set fails a try too (a later try may read it as its own).
        failedAt.push(calls);
        const recent = failedAt.filter((call) => call > calls - schedule.window).length;
        faults.densest = Math.max(faults.densest, recent);
        return false;
      }
      const done = await inner.compareAndSet(runId, expected, next, events, head);
      if (done) {
        // The record the write produced, folded from its events as the store would.
        let record = folded.get(runId) ?? null;
        for (const event of events)
          record = evolveRun(record, unpackStoredEvent(runId, event) as DurableRunEvent);
        if (record) folded.set(runId, record);
        landed.push({
          revision: record?.run.revision ?? 0,
          fencingToken: record?.run.fencingToken ?? 0,
          owner: record?.run.owner ?? null,
        });
      }
      await latency();
      if (mode === 'after') throw fail();
      return done;
    },
  };
  return {
    driver,
    faults,
    landed,
    get calls() {
      return calls;
    },
    /** The store heals: every later call answers (the checks read through it). */
    heal() {
      enabled = false;
      burst = 0;
    },
  };
}
