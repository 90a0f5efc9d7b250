import {
  type RetrySchedule,
  type RunStatusInfo,
  type RunStatusLabelsInput,
  resolveRunStatusLabels,
  runStatusEquals,
  runStatusInfo,
  selectRunStatus,
} from '@runlight/client';
import { useContext, useMemo } from 'react';
import { RunlightContext } from '../provider/runlight-context';
import { useRunStore } from '../provider/use-run-store';
import { useStoreSelector } from '../provider/use-store-selector';

export type { RetrySchedule, RunStatusInfo };

export interface UseRunStatusOptions {
  labels?: RunStatusLabelsInput;
  /**
   * Whether anything recovers a stalled run; default `RunlightProvider`'s `recovers` (false).
   * Only then does a stalled run read `labels.stalledRecovering`.
   */
  recovers?: boolean;
}

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
  return runStatusInfo(view, labels, recovers);
}

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
