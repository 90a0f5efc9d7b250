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
    let memo: { state: RunState; selection: T } | undefined;
    return (): T => {
      const state = store.getState();
      if (memo !== undefined && memo.state === state) return memo.selection;
      const next = select(state);
      // Compare with the last selection of this selector, else with the one on screen.
      const previous =
        memo ?? (rendered.current.has ? { selection: rendered.current.value } : null);
      const selection =
        previous !== null && isEqual(previous.selection, next) ? previous.selection : next;
      memo = { state, selection };
      return selection;
    };
  }, [store, select, isEqual]);
  const value = useSyncExternalStore(store.subscribe, getSelection, getSelection);
  useEffect(() => {
    rendered.current = { has: true, value };
  }, [value]);
  return value;
}
