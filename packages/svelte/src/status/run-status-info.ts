import {
  type ActivityDescription,
  type ActivityKind,
  describeActivity,
  loadFailureOf,
  type RunLoadFailure,
  type RunStatusLabels,
  type RunStatusView,
} from '@runlight/client';

/** A run's status in words, for the status components and headless ones (as in React's). */
export interface RunStatusInfo extends RunStatusView, ActivityDescription {
  /** No state could be loaded (bad data, refused request): show `label` as an error. */
  readonly failedToLoad: boolean;
  /** Why, when `failedToLoad`; `null` otherwise. */
  readonly loadFailure: RunLoadFailure | null;
  /** Something is in progress (a spinner rather than a dot). */
  readonly busy: boolean;
  /** Between a failed model attempt the SDK retries and the next one: count down to `at`. */
  readonly retry: RetrySchedule | undefined;
  /** The labels in use (the defaults merged with yours). */
  readonly labels: RunStatusLabels;
  /** Whether anything recovers a stalled run (the option, else the provider's). */
  readonly recovers: boolean;
}

/** When a retried model request tries again, and which attempt that is. */
export interface RetrySchedule {
  readonly at: string;
  readonly attempt: number;
  readonly maxAttempts: number | undefined;
}

/** Activities during which the run is doing something, rather than waiting or done. */
const BUSY = new Set<ActivityKind>([
  'loading',
  'compacting',
  'waiting-for-model',
  'streaming',
  'working',
]);

const LOAD_FAILURE_LABEL: Record<RunLoadFailure, (labels: RunStatusLabels) => string> = {
  'access-refused': (labels) => labels.accessRefused,
  'not-found': (labels) => labels.notFound,
  unavailable: (labels) => labels.error,
};

/**
 * The status of a run in words, from the client's `selectRunStatus` view, its label tables
 * (`describeActivity`) and load failures (`loadFailureOf`) — the same composition React's
 * `useRunStatus` makes, checked against it by the bindings' table test.
 */
export function describeRunStatus(
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

function retrySchedule({ activity }: RunStatusView): RetrySchedule | undefined {
  const operation = activity.operation;
  if (activity.kind !== 'waiting-for-model' || activity.attempt === undefined) return undefined;
  if (operation?.phase !== 'failed' || operation.retryAt === undefined) return undefined;
  return { at: operation.retryAt, attempt: activity.attempt, maxAttempts: operation.maxAttempts };
}
