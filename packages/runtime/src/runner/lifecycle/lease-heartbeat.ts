import type { ExecutionContext } from '../execution-context';

/** What the heartbeat reads and does; supplied by the execution. */
export interface LeaseHeartbeatTarget {
  /** `performance.now()` of the last owned write. */
  lastWriteAt: () => number;
  /** True once the execution stops: it renews nothing more. */
  stopped: () => boolean;
  /** An owned write that renews the lease (`renewLeaseOf`: a `lease-renewed` event). */
  renew: () => void;
}

/** Renewals per lease while idle: every `leaseMs / 6` (5 s of the default 30 s lease). */
export const HEARTBEATS_PER_LEASE = 6;

/**
 * Every owned mutation renews the lease; a long provider wait writes nothing, so an idle
 * execution renews its lease a sixth of a lease after its last write, so a store outage that
 * starts just before a renewal still has five sixths of a lease to ride out. Returns the interval
 * (unref'd, so it never keeps the process alive) for `clearInterval`.
 *
 * @example
 * const heartbeat = startLeaseHeartbeat(30_000, { lastWriteAt, stopped, renew: () => void renewLeaseOf(context) });
 * clearInterval(heartbeat);
 */
export function startLeaseHeartbeat(
  leaseMs: number,
  target: LeaseHeartbeatTarget,
): ReturnType<typeof setInterval> {
  const every = Math.max(1, Math.floor(leaseMs / HEARTBEATS_PER_LEASE));
  const timer = setInterval(() => {
    if (target.stopped() || performance.now() - target.lastWriteAt() < every) return;
    target.renew();
  }, every);
  timer.unref?.();
  return timer;
}

/**
 * The heartbeat's write: `renewLease`, which bumps the revision and the lease and nothing else
 * — never the assistant message, however long it grew. It takes its turn in the run's queue
 * like every owned mutation. A `FencingError` (another owner took the run over) stops the
 * execution like any lost lease; any other failure is named as a write failure.
 *
 * @example
 * renew: () => void renewLeaseOf(context),
 */
export async function renewLeaseOf(context: ExecutionContext): Promise<void> {
  if (context.stop.writesBroken) return;
  try {
    await context.owned.renewLease();
    context.lastWriteAt = performance.now();
  } catch (error) {
    context.stop.onWriteError(error);
  }
}
