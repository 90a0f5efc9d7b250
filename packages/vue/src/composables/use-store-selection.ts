import { RunObserver, type RunState, type RunStore } from '@runlight/client';
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
 * A selection of a run's state as a shallow ref over the client's `RunObserver` (selection with
 * equality, the lease-expiry re-select): the ref changes only when the selection does. The first
 * value is read during setup from the store (seeded with the server's snapshot when one was
 * handed over), so a server render and the hydrating browser agree; the live connection opens
 * only once mounted — never on the server — and closes a tick after the last component leaves.
 */
export function useStoreSelection<T>(
  hook: string,
  runId: MaybeRefOrGetter<string>,
  select: (state: RunState) => T,
  isEqual?: (a: T, b: T) => boolean,
): Readonly<ShallowRef<T>> {
  const runlight = useRunlight(hook);
  const store = computed<RunStore>(() => runlight.store(toValue(runId)));
  const observer = computed(() => new RunObserver(store.value, { select, isEqual }));
  const selection = shallowRef(observer.value.getSnapshot());
  const mounted = shallowRef(false);
  onMounted(() => {
    mounted.value = true;
  });
  watch([mounted, observer], ([isMounted, current], _previous, onCleanup) => {
    if (!isMounted) return;
    const update = () => {
      selection.value = current.getSnapshot();
    };
    onCleanup(current.subscribe(update));
    update();
  });
  return selection;
}
