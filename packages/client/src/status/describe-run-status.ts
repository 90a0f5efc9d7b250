import type { ActivityKind } from '../select/select-activity';
import {
  type ActivityDescription,
  describeActivity,
  type RunStatusLabels,
} from '../words/run-status-labels';
import { loadFailureOf, type RunLoadFailure } from './load-failure-of';
import type { RunStatusView } from './select-run-status';

/** When a retried model request tries again, and which attempt that is. */
export interface RetrySchedule {
  readonly at: string;
  readonly attempt: number;
  readonly maxAttempts: number | undefined;
}

/** A run's status in words: what every binding's status components show. */
export interface RunStatusDescription extends RunStatusView, ActivityDescription {
  /** No state could be loaded (bad data, refused request): show `label` as an error. */
  readonly failedToLoad: boolean;
  /**
   * Why, when `failedToLoad`: `access-refused` reads `labels.accessRefused`, `not-found`
   * `labels.notFound`, `unavailable` `labels.error`; `null` otherwise.
   */
  readonly loadFailure: RunLoadFailure | null;
  /** Something is in progress (a spinner rather than a dot). */
  readonly busy: boolean;
  /**
   * Between a failed model attempt the SDK retries and the next one, when the record says when
   * (`retryAt`, server clock): count down to `at`.
   */
  readonly retry: RetrySchedule | undefined;
}

/** Activities during which the run is doing something, rather than waiting or done. */
const BUSY = new Set<ActivityKind>([
  'loading',
  'compacting',
  'waiting-for-model',
  'streaming',
  'working',
  'handing-off',
]);

const LOAD_FAILURE_LABEL: Record<RunLoadFailure, (labels: RunStatusLabels) => string> = {
  'access-refused': (labels) => labels.accessRefused,
  'not-found': (labels) => labels.notFound,
  unavailable: (labels) => labels.error,
};

/**
 * The status of a run in words — label, detail, whether it is busy, a retry's schedule, why
 * nothing could be loaded — from its `selectRunStatus` view: one function, so React, Vue and
 * any other binding say the same thing for the same state.
 *
 * @example
 * const status = describeRunStatus(selectRunStatus(store.getState()), resolveRunStatusLabels());
 */
export function describeRunStatus(
  view: RunStatusView,
  labels: RunStatusLabels,
  options: { recovers?: boolean } = {},
): RunStatusDescription {
  const loadFailure = loadFailureOf(view);
  const failedToLoad = loadFailure !== null;
  const description =
    loadFailure === null
      ? describeActivity(view.activity, labels, { recovers: options.recovers ?? false })
      : { label: LOAD_FAILURE_LABEL[loadFailure](labels), detail: undefined };
  return {
    ...view,
    ...description,
    failedToLoad,
    loadFailure,
    busy: !failedToLoad && BUSY.has(view.activity.kind),
    retry: retrySchedule(view),
  };
}

function retrySchedule({ activity }: RunStatusView): RetrySchedule | undefined {
  const operation = activity.operation;
  if (activity.kind !== 'waiting-for-model' || activity.attempt === undefined) return undefined;
  if (operation?.phase !== 'failed' || operation.retryAt === undefined) return undefined;
  return { at: operation.retryAt, attempt: activity.attempt, maxAttempts: operation.maxAttempts };
}
