import { ProtocolValidationError } from '@runlight/protocol';
import { RunlightError } from '../../errors/runlight-error';
import { StoreConflictError } from '../../errors/store-conflict-error';

/**
 * How long one store mutation keeps being tried: capped exponential back-off with jitter, for
 * up to a time budget (by default the runtime's lease), so a live runner rides out a store
 * outage of seconds instead of abandoning its runs after a few milliseconds.
 */
export interface StoreRetryOptions {
  /** Tries of one mutation, the first included. Default: unbounded (the budget decides). */
  attempts?: number;
  /** The pause before the second try, doubled before each further one. Default 20 ms. */
  delayMs?: number;
  /** The longest single pause. Default 2 s. */
  maxDelayMs?: number;
  /** No try starts after this long since the first. Default: the runtime's `leaseMs` (30 s). */
  budgetMs?: number;
  /** Spread of each pause, as a share of it (0 = none, 0.5 = ±50 %). Default 0.2. */
  jitter?: number;
}

export const DEFAULT_STORE_RETRY = {
  attempts: Number.POSITIVE_INFINITY,
  delayMs: 20,
  maxDelayMs: 2_000,
  budgetMs: 30_000,
  jitter: 0.2,
} as const satisfies Required<StoreRetryOptions>;

/** One mutation's tries: `next()` is the pause before the next try, or undefined to give up. */
export interface RetryTries {
  /** Tries made so far. */
  readonly count: number;
  /** Records a failed try; returns the pause before the next, or undefined when out of budget. */
  next(): number | undefined;
}

export function retrySchedule(
  options: StoreRetryOptions | undefined,
  random: () => number = Math.random,
): { start(): RetryTries; attempts: number } {
  const attempts = Math.max(1, Math.floor(options?.attempts ?? DEFAULT_STORE_RETRY.attempts));
  const delayMs = Math.max(0, options?.delayMs ?? DEFAULT_STORE_RETRY.delayMs);
  const maxDelayMs = Math.max(delayMs, options?.maxDelayMs ?? DEFAULT_STORE_RETRY.maxDelayMs);
  const budgetMs = Math.max(0, options?.budgetMs ?? DEFAULT_STORE_RETRY.budgetMs);
  const jitter = Math.min(1, Math.max(0, options?.jitter ?? DEFAULT_STORE_RETRY.jitter));
  return {
    attempts,
    start() {
      const startedAt = Date.now();
      let count = 0;
      return {
        get count() {
          return count;
        },
        next() {
          count++;
          if (count >= attempts) return undefined;
          const base = Math.min(maxDelayMs, delayMs * 2 ** (count - 1));
          const wait = Math.max(0, Math.round(base * (1 + jitter * (2 * random() - 1))));
          const elapsed = Date.now() - startedAt;
          if (elapsed + wait > budgetMs) return undefined;
          return wait;
        },
      };
    },
  };
}

/**
 * Errors that say what the store decided (a rule, a lost lease, a missing run, a bad record):
 * repeating the mutation cannot change them. Everything else — a driver's dropped connection,
 * a timeout — may be transient, and a write may even have landed before its answer was lost.
 */
export function isDecision(error: unknown): boolean {
  return (
    (RunlightError.isRunlightError(error) && !StoreConflictError.isInstance(error)) ||
    ProtocolValidationError.isInstance(error)
  );
}

/** Waits `ms` (no timer for 0). */
export const pause = (ms: number): Promise<void> =>
  ms <= 0 ? Promise.resolve() : new Promise<void>((resolve) => setTimeout(resolve, ms));
