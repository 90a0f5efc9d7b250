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
