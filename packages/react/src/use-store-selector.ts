import type { RunState, RunStore } from '@runlight/client';
import { useEffect, useMemo, useRef, useSyncExternalStore } from 'react';

/**
 * One `useSyncExternalStore` call with a memoised selector (the shape of React's
 * `useSyncExternalStoreWithSelector` and Zustand's `useStore`): the selector runs once per store
 * state, and a selection `isEqual` to the rendered one keeps the rendered reference, so the
 * component re-renders only when its slice changes.
 */
export function useStoreSelector<T>(
  store: RunStore,
  select: (state: RunState) => T,
  isEqual: (a: T, b: T) => boolean = Object.is,
): T {
  const rendered = useRef<{ has: boolean; value: T }>({ has: false, value: undefined as T });
  const getSelection = useMemo(() => {
    let memoState: RunState | undefined;
    let memoSelection: T;
    return (): T => {
      const state = store.getState();
      if (state === memoState) return memoSelection;
      const next = select(state);
      memoState = state;
      const previous = rendered.current;
      memoSelection = previous.has && isEqual(previous.value, next) ? previous.value : next;
      return memoSelection;
    };
  }, [store, select, isEqual]);
  const value = useSyncExternalStore(store.subscribe, getSelection, getSelection);
  useEffect(() => {
    rendered.current = { has: true, value };
  }, [value]);
  return value;
}
