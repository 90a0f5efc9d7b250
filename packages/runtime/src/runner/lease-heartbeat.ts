/** What the heartbeat reads and does; supplied by the execution. */
export interface LeaseHeartbeatTarget {
  /** `performance.now()` of the last owned write. */
  lastWriteAt: () => number;
  /** True once the execution stops: it renews nothing more. */
  stopped: () => boolean;
  /** An owned write that renews the lease (a checkpoint of the message). */
  renew: () => void;
}

/**
 * Every owned mutation renews the lease; a long provider wait writes nothing, so an idle
 * execution re-checkpoints its message a third of a lease after its last write. Returns the
 * interval (unref'd, so it never keeps the process alive) for `clearInterval`.
 *
 * @example
 * const heartbeat = startLeaseHeartbeat(30_000, { lastWriteAt, stopped, renew });
 * clearInterval(heartbeat);
 */
export function startLeaseHeartbeat(
  leaseMs: number,
  target: LeaseHeartbeatTarget,
): ReturnType<typeof setInterval> {
  const every = Math.max(1, Math.floor(leaseMs / 3));
  const timer = setInterval(() => {
    if (target.stopped() || performance.now() - target.lastWriteAt() < every) return;
    target.renew();
  }, every);
  timer.unref?.();
  return timer;
}
