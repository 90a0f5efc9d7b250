import { elapsedClock, shownElapsedMs } from '@runlight/client';
import { useContext, useSyncExternalStore } from 'react';
import { RunlightProviderMissingError } from '../errors/runlight-provider-missing-error';
import { RunlightContext } from '../provider/runlight-context';

export interface UseElapsedOptions {
  /** A server timestamp where the time stops (a finished run): no ticking then. */
  until?: string | null;
  /** `serverClock - clientClock` in ms; overrides the run's estimate. */
  clockOffsetMs?: number | null;
  /** Take the clock offset from this run's store (inside a `RunlightProvider`). */
  runId?: string;
}

const noSubscription = () => () => {};
const noOffset = () => null;

/**
 * Milliseconds since a server timestamp (an operation's `startedAt`, `firstOutputAt`, …),
 * ticking while mounted, measured on the server's clock as the client estimates it, never
 * negative; `null` without a timestamp. Counting from the timestamp itself, a remount or a
 * reconnect never restarts it. Re-renders only when `formatElapsed` would show a new value.
 *
 * @example
 * const activity = useRunActivity(runId);
 * const ms = useElapsed(activity.since, { runId }); // e.g. 4200 → formatElapsed(ms) '4.2 s'
 */
export function useElapsed(
  since: string | null | undefined,
  options: UseElapsedOptions = {},
): number | null {
  const context = useContext(RunlightContext);
  const { runId, until } = options;
  if (runId !== undefined && context === null) throw new RunlightProviderMissingError('useElapsed');
  const store = runId === undefined ? null : context!.client.run(runId);
  const runOffset = useSyncExternalStore(
    store === null ? noSubscription : store.subscribe,
    store === null ? noOffset : () => store.getState().clockOffsetMs,
    store === null ? noOffset : () => store.getState().clockOffsetMs,
  );
  const clockOffsetMs = options.clockOffsetMs ?? runOffset;
  const ticking = since != null && until == null;
  const read = () => shownElapsedMs(since, { until, clockOffsetMs }, elapsedClock.now());
  // The server and hydration render no running time: the clocks of the two would disagree.
  return useSyncExternalStore(
    ticking ? elapsedClock.subscribe : noSubscription,
    read,
    ticking ? noOffset : read,
  );
}
