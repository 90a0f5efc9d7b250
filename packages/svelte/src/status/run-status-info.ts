import {
  describeRunStatus as describeInWords,
  type RetrySchedule,
  type RunStatusDescription,
  type RunStatusLabels,
} from '@runlight/client';

export type { RetrySchedule };

/**
 * A run's status in words, for the status components and headless ones: `@runlight/client`'s
 * `describeRunStatus` (the words every binding shares) with the labels and `recovers` in use.
 */
export interface RunStatusInfo extends RunStatusDescription {
  /** The labels in use (the defaults merged with yours). */
  readonly labels: RunStatusLabels;
  /** Whether anything recovers a stalled run (the option, else the provider's). */
  readonly recovers: boolean;
}

/** `describeRunStatus` of the client, with the labels and `recovers` it was given. */
export function describeRunStatus(
  view: Parameters<typeof describeInWords>[0],
  labels: RunStatusLabels,
  recovers: boolean,
): RunStatusInfo {
  return { ...describeInWords(view, labels, { recovers }), labels, recovers };
}
