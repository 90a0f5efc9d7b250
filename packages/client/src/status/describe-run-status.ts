import type { ActivityKind } from '../select/select-activity';
import {
  type ActivityDescription,
  describeActivity,
  type RunStatusLabels,
  statusText,
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
   * Why, when `failedToLoad`: `unreachable` reads `labels.unreachable`, `access-refused`
   * `labels.accessRefused`, `not-found` `labels.notFound`, `unavailable` `labels.error`; `null`
   * otherwise.
   */
  readonly loadFailure: RunLoadFailure | null;
  /**
   * The server cannot be reached, and what is shown of the run is its last known status: the
   * label is `labels.unreachable`, the detail `labels.lastKnown(…)`, and the time stops at the
   * last answer (`until`). Show it as not current.
   */
  readonly lastKnown: boolean;
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
  unreachable: (labels) => labels.unreachable,
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
  const lastKnown = !failedToLoad && view.connectionIssue === 'unreachable';
  let description: ActivityDescription;
  if (loadFailure !== null) {
    description = { label: LOAD_FAILURE_LABEL[loadFailure](labels), detail: undefined };
  } else {
    description = describeActivity(view.activity, labels, { recovers: options.recovers ?? false });
    if (lastKnown) {
      // The run's words move to the detail, marked as last known; the label says why.
      description = {
        label: labels.unreachable,
        detail: labels.lastKnown(statusText(description)),
      };
    } else if (view.activity.kind === 'loading' && view.connectionIssue === 'waiting') {
      description = { label: labels.waitingForConnection, detail: undefined };
    }
  }
  return {
    ...view,
    ...description,
    failedToLoad,
    loadFailure,
    lastKnown,
    // Nothing is known to be in progress while the server cannot be reached.
    busy: !failedToLoad && !lastKnown && BUSY.has(view.activity.kind),
    retry: lastKnown ? undefined : retrySchedule(view),
  };
}

function retrySchedule({ activity }: RunStatusView): RetrySchedule | undefined {
  const operation = activity.operation;
  if (activity.kind !== 'waiting-for-model' || activity.attempt === undefined) return undefined;
  if (operation?.phase !== 'failed' || operation.retryAt === undefined) return undefined;
  return { at: operation.retryAt, attempt: activity.attempt, maxAttempts: operation.maxAttempts };
}
