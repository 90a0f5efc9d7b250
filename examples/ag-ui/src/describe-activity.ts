import type { Message } from '@ag-ui/core';

/** The `runlight.operation` activity content (`OperationActivityContent` of `@runlight/ag-ui`). */
export interface OperationActivity {
  kind: string;
  since: string | null;
  attempt: number | null;
  failure: { code: string } | null;
  interrupted: string | null;
  operation: {
    kind: string;
    phase: string;
    attempt?: number;
    retryAt?: string;
    maxAttempts?: number;
    failureReason?: string;
    willRetry?: boolean;
  } | null;
}

/** The run's `runlight.operation` activity among an agent's messages, if it has one yet. */
export function activityOf(messages: readonly Message[]): OperationActivity | null {
  const message = messages.find(
    (candidate) => candidate.role === 'activity' && candidate.activityType === 'runlight.operation',
  );
  return message?.role === 'activity' ? (message.content as unknown as OperationActivity) : null;
}

const time = (iso: string) => new Date(iso).toLocaleTimeString('en-GB', { hour12: false });
const seconds = (from: string, now: number) =>
  Math.max(0, Math.floor((now - Date.parse(from)) / 1000));

/**
 * What the page says for the run's activity: every state from the durable record, times
 * counted from the server's original timestamps (a reload never restarts them).
 */
export function describeActivity(activity: OperationActivity, now: number): string {
  const operation = activity.operation;
  switch (activity.kind) {
    case 'queued':
      return 'Queued';
    case 'compacting':
      return `Compacting the context since ${time(activity.since!)}`;
    case 'waiting-for-model': {
      const since = activity.since
        ? ` since ${time(activity.since)} (${seconds(activity.since, now)} s)`
        : '';
      if (operation?.phase === 'failed' && operation.willRetry && operation.retryAt) {
        const wait = Math.max(0, Math.ceil((Date.parse(operation.retryAt) - now) / 1000));
        return `The model failed (${operation.failureReason ?? 'other'}); retrying in ${wait} s (attempt ${activity.attempt} of ${operation.maxAttempts ?? '?'})`;
      }
      const attempt = activity.attempt ? ` — attempt ${activity.attempt}` : '';
      return `Waiting for the model${since}${attempt}`;
    }
    case 'streaming':
      return 'Streaming the answer';
    case 'awaiting-approval':
      return 'Waiting for your approval';
    case 'working':
      return 'Working';
    case 'stalled':
      return `The worker stopped responding at ${time(activity.since!)} (was ${activity.interrupted})`;
    case 'completed':
      return 'Completed';
    case 'cancelled':
      return 'Cancelled';
    case 'failed':
      return `Failed: ${activity.failure?.code ?? 'internal'}`;
    default:
      return activity.kind;
  }
}
