import type { Activity } from '../select/select-activity';
import {
  defaultRunStatusLabels,
  describeActivity,
  type RunStatusLabels,
  statusText,
} from '../words/run-status-labels';
import type { RunTimelineModel, TimelineGap, TimelineSpan } from './build-run-timeline';

/**
 * The words of a timeline's rows (`@runlight/react`'s `RunTimeline`), from the same labels and
 * the same activity as the status (`RunStatus`):
 * the operation in flight reads what the status reads (a retry names its attempt, a stalled run
 * reads stalled), the run's failure names its owner (`storage_conflict`, `ownership_lost`, …)
 * on the operation it belongs to, and the wait before a retry is a retry wait, not "other work".
 */
export interface TimelineMoment {
  /** The run's activity now (`selectActivity`); without it rows read their records only. */
  readonly activity?: Activity;
  readonly labels?: RunStatusLabels;
  /** Whether anything recovers a stalled run (see `ActivityContext`); default false. */
  readonly recovers?: boolean;
}

const PHASE: Record<TimelineSpan['phase'], string> = {
  started: 'in progress',
  'first-output': 'streaming',
  completed: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
};

/**
 * Why a model request failed, in words. `other` (a failure no status or error class names) and
 * a reason a newer server sends add nothing: the row already says it failed, and a raw code
 * such as "(other)" tells a reader nothing.
 */
const REASON_WORDS: Readonly<Record<string, string>> = {
  rate_limited: '(rate limited)',
  server_error: '(server error)',
  timeout: '(timed out)',
  network: '(network error)',
};

const reasonWords = (span: TimelineSpan) =>
  span.failureReason === null ? null : (REASON_WORDS[span.failureReason] ?? null);

/**
 * A row's heading: the operation and, for a retry, its attempt in the labels' numbering.
 *
 * @example
 * describeSpanHeading(span); // 'Model request, attempt 2 of the request'
 */
export function describeSpanHeading(
  span: TimelineSpan,
  labels: RunStatusLabels = defaultRunStatusLabels,
): string {
  if (span.kind === 'compaction') return 'Compaction';
  return span.attempt !== null && span.attempt > 1
    ? `Model request, ${labels.attempt(span.attempt)}`
    : 'Model request';
}

/**
 * The words of a span's result — never only a colour. With the run's `activity`: the operation
 * in flight reads the status's label (stalled included), and the failed operation the run's
 * failure names reads as the status does (`Failed: Another worker took over`). A failed model
 * request without a provider's reason (none, or `other`) that was not retried and is not the
 * run's failure was closed by the owner that took the run over (the runtime records a dead
 * owner's operation so): a provider failure that is not retried fails the run.
 *
 * @example
 * describeSpanResult(span); // 'failed (rate limited) — retried as attempt 2 of the request'
 * describeSpanResult(span, { activity }); // 'The worker stopped responding'
 * describeSpanResult(span, { activity, recovers: true }); // 'The worker stopped responding — recovering'
 */
export function describeSpanResult(span: TimelineSpan, moment: TimelineMoment = {}): string {
  const labels = moment.labels ?? defaultRunStatusLabels;
  const { activity } = moment;
  if (activity !== undefined && span.inFlight && activity.operation?.id === span.id) {
    return statusText(describeActivity(activity, labels, { recovers: moment.recovers === true }));
  }
  if (span.phase === 'failed') {
    if (activity?.kind === 'failed' && activity.failure?.operationId === span.id) {
      const words = [statusText(describeActivity(activity, labels))];
      const reason = reasonWords(span);
      if (activity.failure.code === 'provider_failure' && reason !== null) words.push(reason);
      return words.join(' ');
    }
    if (span.retried) {
      const words = [PHASE.failed, reasonWords(span), '— retried'];
      if (span.attempt !== null) words.push(`as ${labels.attempt(span.attempt + 1)}`);
      return words.filter((word) => word !== null).join(' ');
    }
    // Not a provider's failure (it would have failed the run or been retried): a takeover.
    const unclassified = span.failureReason === null || span.failureReason === 'other';
    if (activity !== undefined && span.kind === 'model-request' && unclassified) {
      return `${PHASE.failed}: ${labels.failure.ownership_lost}`;
    }
  }
  const words = [PHASE[span.phase]];
  if (span.outcome === 'not_needed') words.push('(not needed)');
  if (span.outcome === 'compacted') words.push('(compacted)');
  const reason = reasonWords(span);
  if (reason !== null) words.push(reason);
  return words.join(' ');
}

/**
 * A gap's heading and result: a retry wait names the attempt it waits for — while it goes on
 * with the status's words, once the attempt began in the past tense (a finished run never
 * reads as waiting); any other gap is the runner's own work between operations.
 *
 * @example
 * describeGap(liveGap); // { heading: 'Retry wait', result: 'Waiting to retry the model (attempt 2 of the request)' }
 * describeGap(pastGap); // { heading: 'Retry wait', result: 'Waited to retry the model (attempt 2 of the request)' }
 */
export function describeGap(
  gap: TimelineGap,
  labels: RunStatusLabels = defaultRunStatusLabels,
): { heading: string; result: string } {
  if (gap.retryAttempt === null) {
    return { heading: 'Between operations', result: 'tools, approvals or other work' };
  }
  const result = gap.inFlight
    ? labels.retryWait(gap.retryAttempt)
    : labels.retryWaited(gap.retryAttempt);
  return { heading: 'Retry wait', result };
}

/**
 * The model with the wait the run is in now, when its activity is a retry wait (a failed
 * attempt the AI SDK retries, the next attempt not started): a last gap row in flight, so the
 * timeline shows the moment the status shows. Otherwise `model` itself.
 *
 * @example
 * const shown = withRetryWait(buildRunTimeline(operations), selectActivity(store.getState()));
 */
export function withRetryWait(model: RunTimelineModel, activity: Activity): RunTimelineModel {
  const operation = activity.operation;
  if (
    activity.kind !== 'waiting-for-model' ||
    activity.attempt === undefined ||
    operation?.phase !== 'failed'
  ) {
    return model;
  }
  const last = model.spans.at(-1);
  if (last === undefined || last.id !== operation.id || last.totalMs === null) return model;
  const gap: TimelineGap = {
    id: `gap:${last.id}`,
    startedAt: last.endedAt ?? last.startedAt,
    startMs: last.startMs + last.totalMs,
    durationMs: 0,
    after: last.id,
    retryAttempt: activity.attempt,
    inFlight: true,
  };
  return { ...model, rows: [...model.rows, { type: 'gap', gap }] };
}
