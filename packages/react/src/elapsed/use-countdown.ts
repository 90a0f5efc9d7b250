import { useSyncExternalStore } from 'react';
import { elapsedClock } from './elapsed-clock';

const noSubscription = () => () => {};
const noValue = () => null;

/**
 * Whole seconds until a server timestamp (a retried model request's `retryAt`), counted down on
 * the server's clock as the client estimates it (`clockOffsetMs`), never below 0; `null`
 * without a timestamp. The time comes from the record, so a reload shows the same count.
 * Re-renders only when the count changes (once a second until 0).
 *
 * @example
 * const seconds = useCountdown(operation.retryAt, { clockOffsetMs }); // 3, 2, 1, 0
 */
export function useCountdown(
  until: string | null | undefined,
  options: { clockOffsetMs?: number | null } = {},
): number | null {
  const clockOffsetMs = options.clockOffsetMs ?? null;
  const read = (): number | null => {
    if (until == null) return null;
    const target = Date.parse(until);
    if (Number.isNaN(target)) return null;
    const left = target - (elapsedClock.now() + (clockOffsetMs ?? 0));
    return Math.max(0, Math.ceil(left / 1000));
  };
  const ticking = until != null;
  // The server and hydration render no count: the clocks of the two would disagree.
  return useSyncExternalStore(ticking ? elapsedClock.subscribe : noSubscription, read, noValue);
}
