import type { ScriptedStep } from '../../../testing/scripted-model';
import { seededRandom } from '../../../testing/with-latency';

/** Provider error text a schedule injects: it must never reach a record or an event. */
export const SECRET = 'sk-live-FAULT-SIM-7731';

/** One schedule: a run's script, its faults and the points where the world interferes. */
export interface Schedule {
  seed: number;
  /** The scripted provider's steps (a retried request consumes a step). */
  steps: ScriptedStep[];
  stepLimit: number;
  maxRetries: number;
  /** A tool the model calls that throws (its error text must be redacted). */
  toolThrows: boolean;
  /** Compaction before each request: not configured, or the outcome of each invocation. */
  compact: ('not_needed' | 'compacted' | 'throw')[] | null;
  /** What happens when the run pauses for approval. */
  onPause: 'approve' | 'deny' | 'cancel' | 'leave';
  /** Per driver call, the chance a burst of failures starts (0 = a healthy store). */
  faultRate: number;
  /** Per compare-and-set, the chance it is lost to a foreign writer. */
  conflictRate: number;
  /** Cancel after this many driver calls (or never). */
  cancelAt: number | null;
  /** A second runtime steals the lease after this many driver calls (or never). */
  theftAt: number | null;
  /** Extra macrotask ticks a driver call may take (0 = answers in a microtask). */
  maxLatencyTicks: number;
}

/** What the provider does at one step; `kinds` of the schedule name their owner. */
export type ProviderFault = 'none' | 'reject' | 'error-part' | 'broken' | 'retried';

/**
 * The schedule of `seed`: the same seed always gives the same schedule (the replay with
 * `FC_SEED`). Its random draws during the run (driver faults, latency) come from the same seed.
 *
 * @example
 * const schedule = scheduleOf(42);
 */
export function scheduleOf(seed: number): Schedule {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const chance = (p: number) => random() < p;

  const logical = 1 + Math.floor(random() * 3);
  const steps: ScriptedStep[] = [];
  let approval = false;
  for (let index = 0; index < logical; index++) {
    const last = index === logical - 1;
    const firstTokenMs = chance(0.15) ? 1 : 0;
    // A retryable failure before the step's real answer (the SDK retries it: 429 or 503).
    const retries = chance(0.2) ? 1 + Math.floor(random() * 2) : 0;
    for (let retry = 0; retry < retries; retry++) {
      steps.push({
        error: { at: 'request', status: pick([429, 503]), retryAfterMs: 0, message: SECRET },
      });
    }
    const fault = chance(0.12) ? pick(['reject', 'error-part', 'broken'] as const) : 'none';
    if (fault === 'reject') {
      steps.push({ firstTokenMs, error: { at: 'request', message: SECRET } });
      continue;
    }
    const text = pick(['Hello there, friend.', 'One two three four five six.', 'Ok.']);
    const error =
      fault === 'none'
        ? undefined
        : { at: 1 + Math.floor(random() * 3), break: fault === 'broken', message: SECRET };
    if (last) {
      steps.push({
        firstTokenMs,
        text,
        reasoning: chance(0.3) ? 'Thinking it over' : undefined,
        error,
      });
    } else {
      const pay: boolean = !approval && chance(0.35);
      approval ||= pay;
      steps.push({
        firstTokenMs,
        text: chance(0.5) ? text : undefined,
        toolCalls: [{ toolName: pay ? 'pay' : 'lookup', input: pay ? { amount: 5 } : { q: 'x' } }],
        error,
      });
    }
  }
  // Enough steps that an approved resume or a retry never runs off the end of the script.
  steps.push({ text: 'Spare answer.' }, { text: 'Spare answer.' });

  const healthy = chance(0.25);
  return {
    seed,
    steps,
    stepLimit: logical + 1,
    maxRetries: 2,
    toolThrows: chance(0.2),
    compact: chance(0.3)
      ? Array.from({ length: 6 }, () =>
          pick(['not_needed', 'not_needed', 'compacted', 'compacted', 'throw'] as const),
        )
      : null,
    onPause: pick(['approve', 'approve', 'deny', 'cancel', 'leave'] as const),
    faultRate: healthy ? 0 : pick([0.02, 0.05, 0.1, 0.2]),
    conflictRate: healthy ? 0 : pick([0, 0, 0.01, 0.03]),
    cancelAt: chance(0.15) ? Math.floor(random() * 40) : null,
    theftAt: chance(0.12) ? 3 + Math.floor(random() * 30) : null,
    maxLatencyTicks: pick([0, 1, 2]),
  };
}
