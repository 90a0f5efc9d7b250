import { RunObserver, type RunState, type RunStore } from '@runlight/client';
import { useMemo, useSyncExternalStore } from 'react';

const whole = (state: RunState): RunState => state;

/**
 * A run store's state for the devtools, watched passively (`RunObserver` with `passive: true`,
 * on `store.watch`): every change the app's own subscribers make the store receive — a snapshot,
 * an event, a connection state — re-renders at once, and the lease-expiry timer shows a stall,
 * but looking never opens or holds the run's connection. No polling.
 */
export function useWatchedRun(store: RunStore): RunState {
  const observer = useMemo(() => new RunObserver(store, { select: whole, passive: true }), [store]);
  return useSyncExternalStore(observer.subscribe, observer.getSnapshot, observer.getSnapshot);
}
