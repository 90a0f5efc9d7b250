'use client';

import { formatElapsed, type RunStatusInfo, useCountdown, useElapsed } from '@runlight/react';

/**
 * What every Runlight registry component shares: class joining, the tone of each activity (its
 * colour is a shadcn-style CSS variable, light and dark, from this item's `cssVars`), and the
 * ticking texts — elapsed time and retry countdown — which are hidden from screen readers so a
 * live region announces the change of phase, never every second.
 */
export function cx(...classes: (string | false | null | undefined)[]): string {
  return classes.filter(Boolean).join(' ');
}

export type RunTone = 'neutral' | 'busy' | 'success' | 'warning' | 'danger';

type Kind = RunStatusInfo['activity']['kind'];

const TONES: Record<Kind, RunTone> = {
  loading: 'neutral',
  queued: 'neutral',
  compacting: 'busy',
  'waiting-for-model': 'busy',
  streaming: 'busy',
  working: 'busy',
  'awaiting-approval': 'warning',
  stalled: 'warning',
  'handing-off': 'busy',
  completed: 'success',
  failed: 'danger',
  cancelled: 'neutral',
  'not-created': 'neutral',
};

/** The tone of a status: a run that could not be loaded reads as a failure. */
export function toneOf(status: Pick<RunStatusInfo, 'activity' | 'failedToLoad'>): RunTone {
  return status.failedToLoad ? 'danger' : (TONES[status.activity.kind] ?? 'neutral');
}

/** Text in the tone's colour (4.5:1 or more on `--background` and on `--card`, both themes). */
export const toneText: Record<RunTone, string> = {
  neutral: 'text-foreground',
  busy: 'text-runlight-busy',
  success: 'text-runlight-success',
  warning: 'text-runlight-warning',
  danger: 'text-runlight-danger',
};

/** A tinted surface with a border in the tone (the text on it stays `text-foreground`). */
export const toneSurface: Record<RunTone, string> = {
  neutral: 'border-border bg-card',
  busy: 'border-runlight-busy/40 bg-card',
  success: 'border-runlight-success/40 bg-card',
  warning: 'border-runlight-warning/50 bg-card',
  danger: 'border-runlight-danger/50 bg-card',
};

/** A dot, or a spinner while the run is busy; decorative (the text beside it says the status). */
export function StatusDot({ status, className }: { status: RunStatusInfo; className?: string }) {
  const tone = toneText[toneOf(status)];
  return (
    <span
      aria-hidden="true"
      data-slot="runlight-dot"
      className={cx(
        'inline-block shrink-0 rounded-full',
        status.busy
          ? 'size-3 animate-spin border-2 border-current border-r-transparent motion-reduce:animate-none motion-reduce:border-r-current'
          : 'size-2.5 bg-current',
        tone,
        className,
      )}
    />
  );
}

/** The time since the status began (server clock), frozen for a finished run. */
export function ElapsedText({
  status,
  format = formatElapsed,
  className,
}: {
  status: RunStatusInfo;
  format?: (ms: number) => string;
  className?: string;
}) {
  const ms = useElapsed(status.since, {
    until: status.until ?? null,
    clockOffsetMs: status.clockOffsetMs,
  });
  if (ms === null) return null;
  return (
    <span aria-hidden="true" className={cx('tabular-nums text-muted-foreground', className)}>
      {format(ms)}
    </span>
  );
}

/** "Retrying in 3 s (attempt 2 of 3)", counted down to the record's `retryAt`. */
export function CountdownText({
  status,
  className,
}: {
  status: RunStatusInfo;
  className?: string;
}) {
  const seconds = useCountdown(status.retry?.at, { clockOffsetMs: status.clockOffsetMs });
  if (status.retry === undefined || seconds === null) return null;
  return (
    <span aria-hidden="true" className={cx('tabular-nums', className)}>
      {status.labels.retryCountdown(seconds, status.retry.attempt, status.retry.maxAttempts)}
    </span>
  );
}
