'use client';

import { type RunStatusLabelsInput, useRunStatus } from '@runlight/react';
import {
  CountdownText,
  cx,
  ElapsedText,
  StatusDot,
  toneOf,
  toneSurface,
  toneText,
} from '@/lib/runlight-ui';

export interface RunStatusPillProps {
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
 * The run's status as a pill: a dot or spinner, the label (a failure names its owner), and the
 * time in it — or, between a failed attempt and its retry, the countdown to the retry. A polite
 * live region: screen readers hear each new status once, not the ticking time.
 *
 * @example
 * <RunStatusPill runId={runId} />
 */
export function RunStatusPill({ runId, labels, recovers, className }: RunStatusPillProps) {
  const status = useRunStatus(runId, {
    ...(labels === undefined ? {} : { labels }),
    ...(recovers === undefined ? {} : { recovers }),
  });
  const tone = toneOf(status);
  return (
    <div
      role="status"
      aria-live="polite"
      data-slot="runlight-status-pill"
      data-activity={status.activity.kind}
      className={cx(
        'inline-flex max-w-full items-center gap-2 rounded-full border px-3 py-1 text-sm',
        toneSurface[tone],
        className,
      )}
    >
      <StatusDot status={status} />
      {/* During a retry wait the countdown says it all; the label is for screen readers. */}
      <span
        className={cx(
          'font-medium',
          tone === 'danger' ? toneText.danger : 'text-foreground',
          status.retry !== undefined && 'sr-only',
        )}
      >
        {status.label}
      </span>
      {status.detail === undefined ? null : (
        <span className="text-foreground">{status.detail}</span>
      )}
      {status.retry === undefined ? (
        <ElapsedText status={status} />
      ) : (
        <CountdownText status={status} className="font-medium text-foreground" />
      )}
    </div>
  );
}
