import { useCallback, useSyncExternalStore } from 'react';

/** What a polled view can also subscribe to for changes it should show at once. */
type Subscribe = (listener: () => void) => () => void;

/**
 * Reads `read()` every `everyMs` ms and on every notification of `sources`. The devtools
 * observe without subscribing to a run store (a subscription would open its connection):
 * `read` must return the same object while nothing changed (`getState()` does).
 */
export function usePolled<T>(read: () => T, sources: readonly Subscribe[], everyMs = 250): T {
  // biome-ignore lint/correctness/useExhaustiveDependencies: the sources are spread in.
  const subscribe = useCallback(
    (listener: () => void) => {
      const timer = setInterval(listener, everyMs);
      const offs = sources.map((source) => source(listener));
      return () => {
        clearInterval(timer);
        for (const off of offs) off();
      };
    },
    [everyMs, ...sources],
  );
  return useSyncExternalStore(subscribe, read, read);
}
