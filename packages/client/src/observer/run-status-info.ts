import { describeRunStatus, type RunStatusDescription } from '../status/describe-run-status';
import type { RunStatusView } from '../status/select-run-status';
import type { RunStatusLabels } from '../words/run-status-labels';

/**
 * A run's status in words with the labels and `recovers` in use: what every binding's
 * `useRunStatus` gives its status components and headless ones.
 */
export interface RunStatusInfo extends RunStatusDescription {
  /** The labels in use (the defaults merged with yours), for the texts around the status. */
  readonly labels: RunStatusLabels;
  /** Whether anything recovers a stalled run (the option, else the provider's). */
  readonly recovers: boolean;
}

/**
 * `describeRunStatus` with the labels and `recovers` it was given, as one object.
 *
 * @example
 * const info = runStatusInfo(selectRunStatus(state), resolveRunStatusLabels(), false); // info.label
 */
export function runStatusInfo(
  view: RunStatusView,
  labels: RunStatusLabels,
  recovers: boolean,
): RunStatusInfo {
  return { ...describeRunStatus(view, labels, { recovers }), labels, recovers };
}
