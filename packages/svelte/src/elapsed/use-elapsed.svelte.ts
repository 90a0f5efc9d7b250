import { countdownSeconds, shownElapsedMs } from '@runlight/client';
import { RunlightProviderMissingError } from '../context/provider-missing-error.js';
import { findRunlightContext } from '../context/runlight-context.svelte.js';
import { type MaybeGetter, read } from '../runes/maybe-getter.js';
import type { Current } from '../runes/run-store-of.js';
import { elapsedClock } from './elapsed-clock.js';

export interface UseElapsedOptions {
  /** A server timestamp where the time stops (a finished run): no ticking then. */
  until?: string | null | undefined;
  /** `serverClock - clientClock` in ms; overrides the run's estimate. */
  clockOffsetMs?: number | null | undefined;
  /** Take the clock offset from this run's store (inside a Runlight context). */
  runId?: string | undefined;
}

/** False on the server and until the component is mounted: the two clocks would disagree. */
function mountedFlag(): { readonly value: boolean } {
  let mounted = $state(false);
  $effect(() => {
    mounted = true;
  });
  return {
    get value() {
      return mounted;
    },
  };
}

/**
 * Milliseconds since a server timestamp (an operation's `startedAt`, `firstOutputAt`, …), in
 * `.current`, ticking while shown, measured on the server's clock as the client estimates it,
 * never negative; `null` without a timestamp, and `null` while running on the server and
 * before hydration. Counting from the timestamp itself, a remount or a reload never restarts
 * it. Call during a component's initialisation.
 *
 * @example
 * const elapsed = useElapsed(() => activity.current.since, () => ({ runId }));
 * // {elapsed.current === null ? '' : formatElapsed(elapsed.current)}
 */
export function useElapsed(
  since: MaybeGetter<string | null | undefined>,
  options: MaybeGetter<UseElapsedOptions> = {},
): Current<number | null> {
  const mounted = mountedFlag();
  const context = findRunlightContext();
  if (read(options).runId !== undefined && context === undefined) {
    throw new RunlightProviderMissingError('useElapsed');
  }
  return {
    get current() {
      const from = read(since);
      const { until, clockOffsetMs, runId } = read(options);
      if (from == null || until != null) return shownElapsedMs(from, { until }, null);
      if (!mounted.value) return null;
      const offset =
        clockOffsetMs ??
        (runId === undefined || context === undefined
          ? null
          : context.client.run(runId).getState().clockOffsetMs);
      return shownElapsedMs(from, { clockOffsetMs: offset }, elapsedClock.now());
    },
  };
}

/**
 * Whole seconds until a server timestamp (a retried model request's `retryAt`), in `.current`,
 * counted down on the server's clock as the client estimates it, never below 0; `null` without
 * a timestamp, on the server and before hydration.
 *
 * @example
 * const seconds = useCountdown(() => status.current.retry?.at, () => ({ clockOffsetMs }));
 */
export function useCountdown(
  until: MaybeGetter<string | null | undefined>,
  options: MaybeGetter<{ clockOffsetMs?: number | null | undefined }> = {},
): Current<number | null> {
  const mounted = mountedFlag();
  return {
    get current() {
      const to = read(until);
      if (to == null || !mounted.value) return null;
      return countdownSeconds(to, read(options).clockOffsetMs, elapsedClock.now());
    },
  };
}
