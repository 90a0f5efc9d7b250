import {
  buildRunTimeline,
  type RunHistoryState,
  type RunTimelineModel,
  runHistoryOf,
} from '@runlight/client';
import {
  type ComputedRef,
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
 * The run's whole operation history (`operations`, `status`), loaded once from
 * `GET …/runs/:id/operations` when first used — once mounted, never on the server — and merged
 * with live events. Status composables never load it.
 *
 * @example
 * const history = useRunHistory(runId); // history.value.operations
 */
export function useRunHistory(
  runId: MaybeRefOrGetter<string>,
): Readonly<ShallowRef<RunHistoryState>> {
  return historyOf('useRunHistory', runId);
}

/**
 * Where the run's time went, as `buildRunTimeline`'s model (rows of operations, gaps, retry
 * waits; `@runlight/client`'s `describeSpanResult` / `describeGap` word them): the data of
 * React's `RunTimeline`, to draw as you like.
 *
 * @example
 * const timeline = useRunTimeline(runId); // timeline.value.rows
 */
export function useRunTimeline(runId: MaybeRefOrGetter<string>): ComputedRef<RunTimelineModel> {
  const history = historyOf('useRunTimeline', runId);
  return computed(() => buildRunTimeline(history.value.operations));
}

function historyOf(
  hook: string,
  runId: MaybeRefOrGetter<string>,
): Readonly<ShallowRef<RunHistoryState>> {
  const { client } = useRunlight(hook);
  const history = computed(() => runHistoryOf(client, toValue(runId)));
  const state = shallowRef(history.value.getState());
  const mounted = shallowRef(false);
  onMounted(() => {
    mounted.value = true;
  });
  watch([mounted, history], ([isMounted, current], _previous, onCleanup) => {
    if (!isMounted) return;
    const update = () => {
      state.value = current.getState();
    };
    onCleanup(current.subscribe(update));
    update();
  });
  return state;
}
