import {
  describeRunStatus,
  type RetrySchedule,
  type RunStatusDescription,
  type RunStatusLabels,
  type RunStatusLabelsInput,
  resolveRunStatusLabels,
  runStatusEquals,
  selectRunStatus,
} from '@runlight/client';
import { type ComputedRef, computed, type MaybeRefOrGetter, toValue } from 'vue';
import { useStoreSelection } from '../composables/use-store-selection';
import { useRunlight } from '../plugin/use-runlight';

export type { RetrySchedule };

/**
 * A run's status in words, for the status components and headless ones: `@runlight/client`'s
 * `describeRunStatus` (the words React's `useRunStatus` gives too) with the labels and
 * `recovers` in use.
 */
export interface RunStatusInfo extends RunStatusDescription {
  /** The labels in use (the defaults merged with yours). */
  readonly labels: RunStatusLabels;
  /** Whether anything recovers a stalled run (the option, else the plugin's). */
  readonly recovers: boolean;
}

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
  return computed(() => {
    const recovers = toValue(options.recovers) ?? provided;
    return {
      ...describeRunStatus(view.value, labels.value, { recovers }),
      labels: labels.value,
      recovers,
    };
  });
}
