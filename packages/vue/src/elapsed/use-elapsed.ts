import { countdownSeconds, shownElapsedMs } from '@runlight/client';
import { type ComputedRef, computed, type MaybeRefOrGetter, toValue } from 'vue';
import { useStoreSelection } from '../composables/use-store-selection';
import { useClock } from './use-clock';

export interface UseElapsedOptions {
  /** When the time stopped (a finished run's terminal commit): a fixed time, no ticking. */
  until?: MaybeRefOrGetter<string | null | undefined>;
  /** The server clock's offset (the run state's `clockOffsetMs`). */
  clockOffsetMs?: MaybeRefOrGetter<number | null | undefined>;
  /** Read the clock offset from this run's state instead (needs the plugin). */
  runId?: MaybeRefOrGetter<string>;
}

/**
 * Ms since a server timestamp on the server's clock as the browser estimates it; ticks while
 * mounted (one shared interval), never negative, and changes only when `formatElapsed` would
 * show a new value. `null` on the server and while hydrating (a finished run's fixed time is
 * shown everywhere).
 *
 * @example
 * const status = useRunStatus(runId);
 * const ms = useElapsed(() => status.value.since, { until: () => status.value.until });
 */
export function useElapsed(
  since: MaybeRefOrGetter<string | null | undefined>,
  options: UseElapsedOptions = {},
): ComputedRef<number | null> {
  const runOffset =
    options.runId === undefined
      ? null
      : useStoreSelection('useElapsed', options.runId, (state) => state.clockOffsetMs);
  const ticking = () => toValue(since) != null && toValue(options.until) == null;
  const now = useClock(ticking);
  return computed(() => {
    const clockOffsetMs = toValue(options.clockOffsetMs) ?? runOffset?.value ?? null;
    return shownElapsedMs(
      toValue(since),
      { until: toValue(options.until), clockOffsetMs },
      now.value,
    );
  });
}

/**
 * Whole seconds left until a server timestamp (a retried model request's `retryAt`), never
 * below 0; `null` on the server and while hydrating.
 *
 * @example
 * const seconds = useCountdown(() => status.value.retry?.at, { clockOffsetMs: () => status.value.clockOffsetMs });
 */
export function useCountdown(
  until: MaybeRefOrGetter<string | null | undefined>,
  options: { clockOffsetMs?: MaybeRefOrGetter<number | null | undefined> } = {},
): ComputedRef<number | null> {
  const now = useClock(() => toValue(until) != null);
  return computed(() =>
    now.value === null
      ? null
      : countdownSeconds(toValue(until), toValue(options.clockOffsetMs), now.value),
  );
}
