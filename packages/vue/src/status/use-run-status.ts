import {
  type ActivityDescription,
  type ActivityKind,
  describeActivity,
  loadFailureOf,
  type RunLoadFailure,
  type RunStatusLabels,
  type RunStatusLabelsInput,
  type RunStatusView,
  resolveRunStatusLabels,
  runStatusEquals,
  selectRunStatus,
} from '@runlight/client';
import { type ComputedRef, computed, type MaybeRefOrGetter, toValue } from 'vue';
import { useStoreSelection } from '../composables/use-store-selection';
import { useRunlight } from '../plugin/use-runlight';

/** A run's status in words, for the status components and headless ones. */
export interface RunStatusInfo extends RunStatusView, ActivityDescription {
  /** No state could be loaded (bad data, refused request): show `label` as an error. */
  readonly failedToLoad: boolean;
  /** Why, when `failedToLoad` (`access-refused`, `not-found`, `unavailable`); null otherwise. */
  readonly loadFailure: RunLoadFailure | null;
  /** Something is in progress (a spinner rather than a dot). */
  readonly busy: boolean;
  /** Between a failed model attempt the SDK retries and the next one: count down to `at`. */
  readonly retry: RetrySchedule | undefined;
  /** The labels in use (the defaults merged with yours). */
  readonly labels: RunStatusLabels;
  /** Whether anything recovers a stalled run (the option, else the plugin's). */
  readonly recovers: boolean;
}

/** When a retried model request tries again, and which attempt that is. */
export interface RetrySchedule {
  readonly at: string;
  readonly attempt: number;
  readonly maxAttempts: number | undefined;
}

export interface UseRunStatusOptions {
  /** Texts to replace (i18n); merged over `defaultRunStatusLabels`. */
  labels?: MaybeRefOrGetter<RunStatusLabelsInput | undefined>;
  /** Whether anything recovers a stalled run; default the plugin's `recovers` (false). */
  recovers?: MaybeRefOrGetter<boolean | undefined>;
}

/** Activities during which the run is doing something, rather than waiting or done. */
const BUSY = new Set<ActivityKind>([
  'loading',
  'compacting',
  'waiting-for-model',
  'streaming',
  'working',
]);

/**
 * The status of a run with its labels — the words of `@runlight/client` (`describeActivity`,
 * `selectRunStatus`) — without the ticking time (give `since` / `until` to `useElapsed` where
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
    return describeRunStatus(view.value, labels.value, recovers);
  });
}

function describeRunStatus(
  view: RunStatusView,
  labels: RunStatusLabels,
  recovers: boolean,
): RunStatusInfo {
  const loadFailure = loadFailureOf(view);
  const failedToLoad = loadFailure !== null;
  const description =
    loadFailure === null
      ? describeActivity(view.activity, labels, { recovers })
      : { label: LOAD_FAILURE_LABEL[loadFailure](labels), detail: undefined };
  return {
    ...view,
    ...description,
    failedToLoad,
    loadFailure,
    busy: !failedToLoad && BUSY.has(view.activity.kind),
    retry: retrySchedule(view),
    labels,
    recovers,
  };
}

const LOAD_FAILURE_LABEL: Record<RunLoadFailure, (labels: RunStatusLabels) => string> = {
  'access-refused': (labels) => labels.accessRefused,
  'not-found': (labels) => labels.notFound,
  unavailable: (labels) => labels.error,
};

function retrySchedule({ activity }: RunStatusView): RetrySchedule | undefined {
  const operation = activity.operation;
  if (activity.kind !== 'waiting-for-model' || activity.attempt === undefined) return undefined;
  if (operation?.phase !== 'failed' || operation.retryAt === undefined) return undefined;
  return { at: operation.retryAt, attempt: activity.attempt, maxAttempts: operation.maxAttempts };
}
