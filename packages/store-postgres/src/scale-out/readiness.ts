import type { RunEventSource } from '@runlight/runtime';

/**
 * Whether a process should be sent traffic now (`GET /ready`): `ready`, or why not —
 * - `closing`: it is shutting down (a SIGTERM): the balancer must stop sending it requests;
 * - `store_unreachable`: the store did not answer a trivial query within the readiness timeout;
 * - `bus_deaf`: its event bus lost its connection (events published elsewhere do not reach it
 *   until it reconnects and catches up).
 *
 * A reason is a code, never a driver's error text (which may name hosts and users).
 */
export type Readiness =
  | { ready: true }
  | { ready: false; reason: 'closing' | 'store_unreachable' | 'bus_deaf' };

/** How long `/ready` waits for the store's answer before it says `store_unreachable`. */
const READY_TIMEOUT_MS = 2_000;

/**
 * The readiness of a process: not closing, its store answers `probe` within `timeoutMs`, its
 * bus is `live`. Never rejects.
 */
export async function checkReadiness(input: {
  closing: boolean;
  probe: () => Promise<unknown>;
  bus: Pick<RunEventSource, 'health'>;
  timeoutMs?: number;
}): Promise<Readiness> {
  if (input.closing) return { ready: false, reason: 'closing' };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const answered = await Promise.race([
    input.probe().then(
      () => true,
      () => false,
    ),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), input.timeoutMs ?? READY_TIMEOUT_MS);
    }),
  ]);
  clearTimeout(timer);
  if (!answered) return { ready: false, reason: 'store_unreachable' };
  if (input.bus.health?.() === 'deaf') return { ready: false, reason: 'bus_deaf' };
  return { ready: true };
}

/** How long one answer of the store's readiness probe is reused. */
export const READY_PROBE_MAX_AGE_MS = 1_000;

/**
 * `probe` shared by every `/ready` hit: concurrent hits wait for the one query in flight, and
 * an answer is reused for `maxAgeMs` (default 1 s) — so a balancer, or anyone, polling `/ready`
 * costs at most one query per second on the shared pool, whatever the rate (it ran one per hit,
 * with no cap). A failed probe is reused too: a store that is down is not asked harder.
 *
 * @example
 * const probe = sharedProbe(() => pool.query('SELECT 1'));
 * checkReadiness({ closing, probe, bus });
 */
export function sharedProbe(
  probe: () => Promise<unknown>,
  options: { maxAgeMs?: number; now?: () => number } = {},
): () => Promise<unknown> {
  const maxAgeMs = options.maxAgeMs ?? READY_PROBE_MAX_AGE_MS;
  const now = options.now ?? (() => performance.now());
  let last: { answer: Promise<unknown>; at: number } | undefined;
  return () => {
    const at = now();
    // In flight, or answered less than maxAgeMs ago: the same answer.
    if (last && at - last.at < maxAgeMs) return last.answer;
    const answer = probe();
    // The age counts from the answer, so a slow probe is not run again at once.
    const entry = { answer, at: Number.POSITIVE_INFINITY };
    const settle = () => {
      entry.at = now();
    };
    answer.then(settle, settle);
    last = entry;
    return answer;
  };
}
