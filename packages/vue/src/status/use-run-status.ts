import {
  type RetrySchedule,
  type RunStatusInfo,
  type RunStatusLabelsInput,
  resolveRunStatusLabels,
  runStatusEquals,
  runStatusInfo,
  selectRunStatus,
} from '@runlight/client';
import { type ComputedRef, computed, type MaybeRefOrGetter, toValue } from 'vue';
import { useStoreSelection } from '../composables/use-store-selection';
import { useRunlight } from '../plugin/use-runlight';

export type { RetrySchedule, RunStatusInfo };

export interface UseRunStatusOptions {
  /** Texts to replace (i18n); merged over `defaultRunStatusLabels`. */
  labels?: MaybeRefOrGetter<RunStatusLabelsInput | undefined>;
  /** Whether anything recovers a stalled run; default the plugin's `recovers` (false). */
  recovers?: MaybeRefOrGetter<boolean | undefined>;
}

/**
 * The status of a run with its labels — the words of `@runlight/client` (`selectRunStatus`,
 * `describeRunStatus`) — without the ticking time (give `since` / `until` to `useElapsed` where
 * the time is shown). Changes when the activity, its times or the error change, never on text
 * deltas.
 *
 * @example
 * const status = useRunStatus(runId, { labels: { activity: { streaming: 'Schreibt…' } } });
 * const ms = useElapsed(() => status.value.since, { until: () => status.value.until });
 */
export function useRunStatus(
  runId: MaybeRefOrGetter<string>,
  options: UseRunStatusOptions = {},
): ComputedRef<RunStatusInfo> {
  const provided = useRunlight('useRunStatus').recovers;
  const view = useStoreSelection('useRunStatus', runId, selectRunStatus, runStatusEquals);
  const labels = computed(() => resolveRunStatusLabels(toValue(options.labels)));
  return computed(() =>
    runStatusInfo(view.value, labels.value, toValue(options.recovers) ?? provided),
  );
}
