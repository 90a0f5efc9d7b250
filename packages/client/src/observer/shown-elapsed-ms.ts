import { selectElapsedMs } from '../select/select-elapsed-ms';
import { elapsedResolutionMs } from '../words/format-elapsed';

/**
 * The elapsed time a status shows, in ms: from `since` to `until` when the time stopped (a
 * finished run — fixed, no clock needed), else to `now` on the server's clock as the client
 * estimates it, rounded down to the step `formatElapsed` shows (so a view ticking every 100 ms
 * changes only when its text would). Never negative; `null` without `since`, and `null` for a
 * running time without `now` (a server render, where the two clocks would disagree).
 *
 * @example
 * shownElapsedMs(status.since, { until: status.until, clockOffsetMs }, elapsedClock.now()); // 4200
 */
export function shownElapsedMs(
  since: string | null | undefined,
  options: { until?: string | null | undefined; clockOffsetMs?: number | null | undefined },
  now: number | null,
): number | null {
  if (since == null) return null;
  const { until } = options;
  if (until != null) return Math.max(0, finite(Date.parse(until) - Date.parse(since)));
  if (now === null) return null;
  const ms = selectElapsedMs(since, { clockOffsetMs: options.clockOffsetMs ?? null }, now);
  const step = elapsedResolutionMs(ms);
  return Math.floor(ms / step) * step;
}

function finite(value: number): number {
  return Number.isFinite(value) ? value : 0;
}
