import type { ActivityKind } from '@runlight/client';
import { useMemo } from 'react';
import { useRunStore } from '../provider/use-run-store';
import { useStoreSelector } from '../provider/use-store-selector';
import {
  type ActivityDescription,
  describeActivity,
  type RunStatusLabelsInput,
  resolveRunStatusLabels,
} from './run-status-labels';
import { type RunStatusView, runStatusEquals, selectRunStatus } from './select-run-status';

/** A run's status in words, for the status components and headless ones. */
export interface RunStatusInfo extends RunStatusView, ActivityDescription {
  /** No state could be loaded (bad data, refused request): show `label` as an error. */
  readonly failedToLoad: boolean;
  /** Something is in progress (a spinner rather than a dot). */
  readonly busy: boolean;
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
export function useRunStatus(
  runId: string,
  options: { labels?: RunStatusLabelsInput } = {},
): RunStatusInfo {
  const view = useStoreSelector(
    useRunStore('useRunStatus', runId),
    selectRunStatus,
    runStatusEquals,
  );
  const labels = useMemo(() => resolveRunStatusLabels(options.labels), [options.labels]);
  const failedToLoad = view.activity.kind === 'loading' && view.error !== null;
  const description = failedToLoad
    ? { label: labels.error, detail: undefined }
    : describeActivity(view.activity, labels);
  const busy = !failedToLoad && BUSY.has(view.activity.kind);
  return { ...view, ...description, failedToLoad, busy };
}
