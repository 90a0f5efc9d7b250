import type { Activity } from '@runlight/client';
import type { ChatStatus } from 'ai';

/**
 * Runlight's activity of a run (`selectActivity`, `useRunStatus`) as `useChat`'s four
 * statuses, so a page that shows the run without `useChat` (or beside it, after a reload)
 * agrees with it:
 * - `submitted` — nothing of the answer yet: loading, not created yet, queued, compacting or waiting for the
 *   model's first output of the run's first step;
 * - `streaming` — the answer is being written: streaming, a tool or the next step working,
 *   waiting for a later step's model request, or stalled mid-run (a takeover follows);
 * - `ready` — nothing runs: completed, cancelled, awaiting the user's approvals, or no run;
 * - `error` — the run failed.
 *
 * @example
 * const status = toChatStatus(useRunStatus(runId).activity);
 */
export function toChatStatus(activity: Pick<Activity, 'kind' | 'operation'> | null): ChatStatus {
  switch (activity?.kind) {
    case undefined:
    case 'completed':
    case 'cancelled':
    case 'awaiting-approval':
      return 'ready';
    case 'failed':
      return 'error';
    case 'loading':
    case 'not-created':
    case 'queued':
    case 'compacting':
    case 'waiting-for-model':
      return (activity.operation?.step ?? 0) > 0 ? 'streaming' : 'submitted';
    case 'streaming':
    case 'working':
    case 'stalled':
    case 'handing-off':
      return 'streaming';
  }
}
