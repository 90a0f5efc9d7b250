'use client';

import { formatElapsed, useRunStatus } from '@runlight/react';
import { cx, ElapsedText } from '@/lib/runlight-ui';

export interface ElapsedTimerProps {
  runId: string;
  /** How the time is written; default `formatElapsed` ("4.2 s", "1 min 5 s"). */
  format?: (ms: number) => string;
  className?: string;
}

/**
 * The time the run has spent in its current activity, on the server's clock and from the
 * record's own timestamp (a reload or reconnect never restarts it); a finished run shows its
 * total, not ticking. Hidden from screen readers: it changes every tick.
 *
 * @example
 * <ElapsedTimer runId={runId} />
 */
export function ElapsedTimer({ runId, format = formatElapsed, className }: ElapsedTimerProps) {
  const status = useRunStatus(runId);
  return (
    <span data-slot="runlight-elapsed-timer" className={cx('text-sm', className)}>
      <ElapsedText status={status} format={format} />
    </span>
  );
}
