'use client';

import { type RunStatusLabelsInput, useRunStatus } from '@runlight/react';
import { CountdownText, cx } from '@/lib/runlight-ui';

/** Why an attempt failed, in words (the protocol's closed enum; never provider text). */
const REASONS: Record<string, string> = {
  rate_limited: 'The provider is rate limiting requests',
  server_error: 'The provider had a server error',
  timeout: 'The provider did not answer in time',
  network: 'The connection to the provider failed',
  other: 'The model request failed',
};

export interface RetryCountdownProps {
  runId: string;
  labels?: RunStatusLabelsInput;
  /** Words for `failureReason` (i18n); merged over the defaults. */
  reasons?: Partial<Record<string, string>>;
  className?: string;
}

/**
 * Between a failed model attempt the AI SDK retries and the next attempt: why it failed and a
 * countdown to the retry — "Retrying in 3 s (attempt 2 of 3)" — to the record's `retryAt`, on
 * the server's clock, so every tab and every reload shows the same count. Renders nothing at
 * any other moment. Screen readers hear the wait once; the ticking count is hidden from them.
 *
 * @example
 * <RetryCountdown runId={runId} />
 */
export function RetryCountdown({ runId, labels, reasons, className }: RetryCountdownProps) {
  const status = useRunStatus(runId, labels === undefined ? {} : { labels });
  const retry = status.retry;
  const reason = status.activity.operation?.failureReason;
  return (
    <div role="status" aria-live="polite" data-slot="runlight-retry-countdown">
      {retry === undefined ? null : (
        <div
          className={cx(
            'flex flex-col gap-1 rounded-lg border border-runlight-warning/50 bg-card px-4 py-3 text-sm text-card-foreground',
            className,
          )}
        >
          <p className="font-medium">
            {reason === undefined ? REASONS.other : (reasons?.[reason] ?? REASONS[reason])}
          </p>
          <p className="sr-only">{status.label}</p>
          <CountdownText status={status} className="text-runlight-warning" />
        </div>
      )}
    </div>
  );
}
