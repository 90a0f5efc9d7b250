import { RunObserver, type RunState, type RunStore } from '@runlight/client';
import { useMemo, useSyncExternalStore } from 'react';

/**
 * One `useSyncExternalStore` over the client's `RunObserver` (as `@tanstack/react-query`'s
 * `useBaseQuery` binds its `QueryObserver`): the observer is made once per store, and each render
 * hands it the latest `select` / `isEqual` — so an inline selector never subscribes again, the
 * selector runs once per store state, and an equal selection keeps the rendered reference.
 */
export function useStoreSelector<T>(
  store: RunStore,
  select: (state: RunState) => T,
  isEqual?: (a: T, b: T) => boolean,
): T {
  // One observer per store: its `subscribe` is stable however the selector changes.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the selector is handed over below.
  const observer = useMemo(() => new RunObserver(store, { select, isEqual }), [store]);
  observer.setOptions({ select, isEqual });
  return useSyncExternalStore(observer.subscribe, observer.getSnapshot, observer.getSnapshot);
}
