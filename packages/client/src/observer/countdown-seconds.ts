/**
 * Whole seconds until a server timestamp (a retried model request's `retryAt`), counted on the
 * server's clock as the client estimates it (`clockOffsetMs`), never below 0; `null` without a
 * timestamp or with one that does not parse. The one countdown of every binding and the CLI:
 * the time comes from the record, so a reload shows the same count.
 *
 * @example
 * countdownSeconds(status.retry?.at, status.clockOffsetMs, elapsedClock.now()); // 3, 2, 1, 0
 */
export function countdownSeconds(
  until: string | null | undefined,
  clockOffsetMs: number | null | undefined,
  now: number,
): number | null {
  if (until == null) return null;
  const target = Date.parse(until);
  if (Number.isNaN(target)) return null;
  return Math.max(0, Math.ceil((target - (now + (clockOffsetMs ?? 0))) / 1000));
}
