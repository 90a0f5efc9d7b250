import type { AgentRuntimeDriver } from '../store/driver/driver';

export interface LatencyOptions {
  minMs: number;
  maxMs: number;
  /** Seed of the delay sequence, so a failing schedule can be replayed. */
  seed?: number;
}

/** A small, fast, seedable PRNG (mulberry32). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A driver that answers every call on a later tick, like one behind a worker, a socket or a
 * real database: each call waits a seeded random delay in `[minMs, maxMs]` before it reaches
 * the inner driver and another before its answer returns. Even `minMs: 0` is a macrotask
 * later, never a resolved promise.
 *
 * @example
 * const store = createAgentRuntimeStore(withLatency(createMemoryDriver(), { minMs: 0, maxMs: 3, seed: 42 }));
 */
export function withLatency(
  driver: AgentRuntimeDriver,
  options: LatencyOptions,
): AgentRuntimeDriver {
  const random = seededRandom(options.seed ?? 1);
  const span = Math.max(0, options.maxMs - options.minMs);
  const pause = () =>
    new Promise<void>((resolve) => setTimeout(resolve, options.minMs + random() * span));
  const later = async <T>(call: () => Promise<T>): Promise<T> => {
    await pause();
    const result = await call();
    await pause();
    return result;
  };
  return {
    load: (runId) => later(() => driver.load(runId)),
    compareAndSet: (runId, expected, next, events, head) =>
      later(() => driver.compareAndSet(runId, expected, next, events, head)),
    readEvents: (runId, after) => later(() => driver.readEvents(runId, after)),
    findExpiredRuns: (query) => later(() => driver.findExpiredRuns(query)),
  };
}
