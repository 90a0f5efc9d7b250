import { type RunState, type RunStore, watchLeaseExpiry } from '@runlight/client';
import { useEffect, useMemo, useRef, useSyncExternalStore } from 'react';

/**
 * One `useSyncExternalStore` call with a memoised selector (the shape of React's
 * `useSyncExternalStoreWithSelector` and Zustand's `useStore`): the selector runs once per store
 * state, and a selection `isEqual` to the rendered one keeps the rendered reference, so the
 * component re-renders only when its slice changes.
 *
 * A selection may depend on the time as well as the state: the activity turns `stalled` when
 * the owner's lease expires, while nothing arrives. A timer at that moment (`watchLeaseExpiry`)
 * makes every selector run again once — no polling.
 */
export function useStoreSelector<T>(
  store: RunStore,
  select: (state: RunState) => T,
  isEqual: (a: T, b: T) => boolean = Object.is,
): T {
  const rendered = useRef<{ has: boolean; value: T }>({ has: false, value: undefined as T });
  const { subscribe, getSelection } = useMemo(() => {
    let memo: { state: RunState; epoch: number; selection: T } | undefined;
    /** Bumped when a lease expires: the same state may select differently from then on. */
    let epoch = 0;
    const subscribe = (listener: () => void) => {
      const unsubscribe = store.subscribe(listener);
      const stopWatching = watchLeaseExpiry(store, () => {
        epoch++;
        listener();
      });
      return () => {
        stopWatching();
        unsubscribe();
      };
    };
    const getSelection = (): T => {
      const state = store.getState();
      if (memo !== undefined && memo.state === state && memo.epoch === epoch) {
        return memo.selection;
      }
      const next = select(state);
      // Compare with the last selection of this selector, else with the one on screen.
      const previous =
        memo ?? (rendered.current.has ? { selection: rendered.current.value } : null);
      const selection =
        previous !== null && isEqual(previous.selection, next) ? previous.selection : next;
      memo = { state, epoch, selection };
      return selection;
    };
    return { subscribe, getSelection };
  }, [store, select, isEqual]);
  const value = useSyncExternalStore(subscribe, getSelection, getSelection);
  useEffect(() => {
    rendered.current = { has: true, value };
  }, [value]);
  return value;
}
