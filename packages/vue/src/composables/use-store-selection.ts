import { type RunState, type RunStore, watchLeaseExpiry } from '@runlight/client';
import {
  computed,
  type MaybeRefOrGetter,
  onMounted,
  type ShallowRef,
  shallowRef,
  toValue,
  watch,
} from 'vue';
import { useRunlight } from '../plugin/use-runlight';

/**
 * A selection of a run's state as a ref that changes only when `isEqual` says the selection
 * changed. The first value is read during setup from the store (seeded with the server's
 * snapshot when one was handed over), so a server render and the hydrating browser agree; the
 * live connection opens only once mounted — never on the server — and closes a tick after the
 * last component leaves. A lease that expires with no event re-selects too (a stalled run).
 */
export function useStoreSelection<T>(
  hook: string,
  runId: MaybeRefOrGetter<string>,
  select: (state: RunState) => T,
  isEqual: (a: T, b: T) => boolean = Object.is,
): Readonly<ShallowRef<T>> {
  const runlight = useRunlight(hook);
  const store = computed<RunStore>(() => runlight.store(toValue(runId)));
  const selection = shallowRef(select(store.value.getState()));
  const update = () => {
    const next = select(store.value.getState());
    if (!isEqual(selection.value, next)) selection.value = next;
  };
  const mounted = shallowRef(false);
  onMounted(() => {
    mounted.value = true;
  });
  // Explicit sources: `update` reads the selection, which must not resubscribe the store.
  watch([mounted, store], ([isMounted, current], _previous, onCleanup) => {
    if (!isMounted) return;
    const unsubscribe = current.subscribe(update);
    const stopWatching = watchLeaseExpiry(current, update);
    update();
    onCleanup(() => {
      stopWatching();
      unsubscribe();
    });
  });
  return selection;
}
