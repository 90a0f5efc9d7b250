import { elapsedClock } from '@runlight/client';
import { type MaybeRefOrGetter, onMounted, type Ref, shallowRef, toValue, watch } from 'vue';

/**
 * The wall clock as a ref, ticking (on the shared clock) while `ticking` is true and the
 * component is mounted; `null` before mount — on the server and while hydrating — where the
 * server's and the browser's clocks would disagree.
 */
export function useClock(ticking: MaybeRefOrGetter<boolean>): Readonly<Ref<number | null>> {
  const now = shallowRef<number | null>(null);
  const mounted = shallowRef(false);
  onMounted(() => {
    mounted.value = true;
  });
  watch([mounted, () => toValue(ticking)], ([isMounted, isTicking], _previous, onCleanup) => {
    if (!isMounted) return;
    now.value = elapsedClock.now();
    if (!isTicking) return;
    onCleanup(
      elapsedClock.subscribe(() => {
        now.value = elapsedClock.now();
      }),
    );
  });
  return now;
}
