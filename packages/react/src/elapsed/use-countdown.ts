import { countdownSeconds, elapsedClock } from '@runlight/client';
import { useSyncExternalStore } from 'react';

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
  const read = () => countdownSeconds(until, options.clockOffsetMs, elapsedClock.now());
  // The server and hydration render no count: the clocks of the two would disagree.
  return useSyncExternalStore(
    until == null ? noSubscription : elapsedClock.subscribe,
    read,
    noValue,
  );
}
