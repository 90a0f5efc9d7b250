import type { ActivityKind } from '@runlight/client';
import {
  type ActivityDescription,
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
import { useContext, useMemo } from 'react';
import { RunlightContext } from '../provider/runlight-context';
import { useRunStore } from '../provider/use-run-store';
import { useStoreSelector } from '../provider/use-store-selector';

/** A run's status in words, for the status components and headless ones. */
export interface RunStatusInfo extends RunStatusView, ActivityDescription {
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
   * (`retryAt`, server clock): count down to `at` with `useCountdown`.
   */
  readonly retry: RetrySchedule | undefined;
  /** The labels in use (the defaults merged with yours), for the texts around the status. */
  readonly labels: RunStatusLabels;
  /** Whether anything recovers a stalled run (the option, else `RunlightProvider`'s). */
  readonly recovers: boolean;
}

export interface UseRunStatusOptions {
  labels?: RunStatusLabelsInput;
  /**
   * Whether anything recovers a stalled run; default `RunlightProvider`'s `recovers` (false).
   * Only then does a stalled run read `labels.stalledRecovering`.
   */
  recovers?: boolean;
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

/**
 * The status of a run with its labels, without the ticking time (pass `since` / `until` to
 * `useElapsed` where the time is shown, so only that part re-renders on each tick).
 * Re-renders when the activity, its times or the error change — never on text deltas.
 *
 * @example
 * const status = useRunStatus(runId, { labels: { activity: { streaming: 'Schreibt…' } } });
 * const ms = useElapsed(status.since, { until: status.until, clockOffsetMs: status.clockOffsetMs });
 */
export function useRunStatus(runId: string, options: UseRunStatusOptions = {}): RunStatusInfo {
  const recovers = useRecovers(options.recovers);
  const view = useStoreSelector(
    useRunStore('useRunStatus', runId),
    selectRunStatus,
    runStatusEquals,
  );
  const labels = useMemo(() => resolveRunStatusLabels(options.labels), [options.labels]);
  const loadFailure = loadFailureOf(view);
  const failedToLoad = loadFailure !== null;
  const description =
    loadFailure === null
      ? describeActivity(view.activity, labels, { recovers })
      : { label: LOAD_FAILURE_LABEL[loadFailure](labels), detail: undefined };
  const busy = !failedToLoad && BUSY.has(view.activity.kind);
  return {
    ...view,
    ...description,
    failedToLoad,
    loadFailure,
    busy,
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

/** The options of `useRunStatus` from a component's props, leaving out what is not given. */
export function statusOptions(
  labels?: RunStatusLabelsInput,
  recovers?: boolean,
): UseRunStatusOptions {
  return {
    ...(labels === undefined ? {} : { labels }),
    ...(recovers === undefined ? {} : { recovers }),
  };
}

/**
 * Whether anything recovers a stalled run: `own` when given, else the nearest
 * `RunlightProvider`'s `recovers` (false without one).
 *
 * @example
 * const recovers = useRecovers(props.recovers);
 */
export function useRecovers(own?: boolean): boolean {
  const provided = useContext(RunlightContext)?.recovers ?? false;
  return own ?? provided;
}

function retrySchedule({ activity }: RunStatusView): RetrySchedule | undefined {
  const operation = activity.operation;
  if (activity.kind !== 'waiting-for-model' || activity.attempt === undefined) return undefined;
  if (operation?.phase !== 'failed' || operation.retryAt === undefined) return undefined;
  return { at: operation.retryAt, attempt: activity.attempt, maxAttempts: operation.maxAttempts };
}
