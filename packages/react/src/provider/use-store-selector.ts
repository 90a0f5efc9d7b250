import { RunObserver, type RunState, type RunStore } from '@runlight/client';
import { useState, useSyncExternalStore } from 'react';

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
  const [observed, setObserved] = useState(() => new RunObserver(store, { select, isEqual }));
  let observer = observed;
  if (observer.store !== store) {
    // Another run: a new observer, kept from this render on (React re-renders at once).
    observer = new RunObserver(store, { select, isEqual });
    setObserved(observer);
  }
  observer.setOptions({ select, isEqual });
  return useSyncExternalStore(observer.subscribe, observer.getSnapshot, observer.getSnapshot);
}
