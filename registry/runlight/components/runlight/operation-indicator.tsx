'use client';

import { type RunStatusLabelsInput, statusText, useRunStatus } from '@runlight/react';
import { StatusDot } from '@/lib/runlight-ui';

export interface OperationIndicatorProps {
  runId: string;
  /** Texts to replace (i18n); merged over `defaultRunStatusLabels`. */
  labels?: RunStatusLabelsInput;
  /**
   * Whether anything recovers a stalled run (then it reads "The worker stopped responding —
   * recovering"); default `RunlightProvider`'s `recovers`, false.
   */
  recovers?: boolean;
  className?: string;
}

/**
 * A dot (a spinner while busy) whose accessible name is the run's status, e.g. "Waiting for the
 * model" or "Failed: Another worker took over". For tight spots: a list, a tab, an avatar.
 *
 * @example
 * <OperationIndicator runId={runId} />
 */
export function OperationIndicator({
  runId,
  labels,
  recovers,
  className,
}: OperationIndicatorProps) {
  const status = useRunStatus(runId, {
    ...(labels === undefined ? {} : { labels }),
    ...(recovers === undefined ? {} : { recovers }),
  });
  return (
    <span
      role="img"
      aria-label={statusText(status)}
      data-slot="runlight-operation-indicator"
      data-activity={status.activity.kind}
      className={className}
    >
      <StatusDot status={status} />
    </span>
  );
}
