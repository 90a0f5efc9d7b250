import type { AgentRuntimeDriver } from '@runlight/runtime';
import { withLatency } from '@runlight/runtime/testing';

/** A driver whose store latency can be changed while the demo runs. */
export interface AdjustableLatencyDriver extends AgentRuntimeDriver {
  /** Every later driver call waits about `ms` before and after it (0: answer at once). */
  setLatency(ms: number): void;
  latencyMs(): number;
}

/**
 * Wraps `driver` in `withLatency` while a latency is set, so the playground can show that a
 * store answering on later ticks changes nothing a visitor sees except the pace. Each change
 * applies to calls made after it; calls in flight finish on the latency they started with.
 *
 * @example
 * const driver = adjustableLatency(createMemoryDriver());
 * driver.setLatency(40); // every load / compare-and-set now takes ~40–80 ms
 */
export function adjustableLatency(driver: AgentRuntimeDriver): AdjustableLatencyDriver {
  let current = driver;
  let latency = 0;
  let seed = 1;
  return {
    load: (runId) => current.load(runId),
    compareAndSet: (runId, expected, next, events) =>
      current.compareAndSet(runId, expected, next, events),
    readEvents: (runId, after) => current.readEvents(runId, after),
    findExpiredRuns: (query) => current.findExpiredRuns(query),
    setLatency(ms) {
      latency = Math.max(0, ms);
      // Half to full latency per hop: later ticks in a varying order, like a real network.
      current =
        latency === 0
          ? driver
          : withLatency(driver, { minMs: latency / 2, maxMs: latency, seed: seed++ });
    },
    latencyMs: () => latency,
  };
}
