import type { RunState } from '../merge/run-state';

/**
 * Milliseconds since a server timestamp (an operation's `startedAt` or `firstOutputAt`),
 * measured on the server's clock as the client estimates it (`state.clockOffsetMs`), so a
 * client whose clock is skewed still shows the right elapsed time. Never negative.
 *
 * @example
 * const activity = selectActivity(state);
 * const ms = activity.since ? selectElapsedMs(activity.since, state) : 0;
 */
export function selectElapsedMs(
  since: string,
  state: Pick<RunState, 'clockOffsetMs'>,
  now: number = Date.now(),
): number {
  const start = Date.parse(since);
  if (Number.isNaN(start)) return 0;
  return Math.max(0, now + (state.clockOffsetMs ?? 0) - start);
}
