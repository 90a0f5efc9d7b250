import {
  pendingApprovals,
  type RunState,
  type SentControlRequest,
  selectActivity,
} from '@runlight/client';
import { activityText, cursorText, formatClock } from './run-facts';

const dash = '–';

/** The run's facts now: activity, connection, lease, operation, approvals, requests. */
export function RunOverview({
  state,
  requests,
  recovers,
}: {
  state: RunState;
  requests: readonly SentControlRequest[];
  recovers: boolean;
}) {
  const activity = selectActivity(state);
  const { run } = state;
  const operation = run?.lastOperation ?? null;
  const approvals = pendingApprovals(state.assistant?.message);
  const facts: [string, string, string][] = [
    ['activity', 'Activity', `${activity.kind} — ${activityText(activity, recovers)}`],
    ['connection', 'Connection', `${state.connection} (${state.phase})`],
    ['cursor', 'Cursor', cursorText(state)],
    ['revision', 'Revision', String(state.revision)],
    ['held', 'Held events', String(state.pending.size)],
    [
      'live',
      'Live deltas',
      state.live === null ? dash : `${state.live.seq} on revision ${state.live.baseRevision}`,
    ],
    ['holder', 'Lease holder', run?.owner ?? dash],
    ['lease', 'Lease expires', run?.leaseExpiresAt ?? dash],
    [
      'clock',
      'Clock offset',
      state.clockOffsetMs === null ? dash : `${Math.round(state.clockOffsetMs)} ms`,
    ],
    ['error', 'Error', state.error === null ? dash : `${state.error.kind}: ${state.error.message}`],
  ];
  const steps: [string, string | undefined][] =
    operation === null
      ? []
      : [
          [
            'Operation',
            `${operation.kind} ${operation.id}${operation.step === undefined ? '' : ` (step ${operation.step})`}`,
          ],
          ['Phase', operation.phase],
          ['Started', operation.startedAt],
          ['First output', operation.firstOutputAt],
          ['Ended', operation.endedAt],
          ['Outcome', operation.outcome],
          [
            'Attempt',
            operation.attempt === undefined
              ? undefined
              : `${operation.attempt}${operation.maxAttempts === undefined ? '' : ` of ${operation.maxAttempts}`}`,
          ],
          ['First attempt', operation.requestStartedAt],
          ['Failure reason', operation.failureReason],
          [
            'Will retry',
            operation.willRetry === undefined ? undefined : String(operation.willRetry),
          ],
          ['Retry at', operation.retryAt],
        ];
  return (
    <dl className="rl-facts" data-testid="runlight-devtools-overview" data-activity={activity.kind}>
      {facts.map(([key, term, value]) => (
        <div key={key} style={{ display: 'contents' }}>
          <dt>{term}</dt>
          <dd data-fact={key}>{value}</dd>
        </div>
      ))}
      {steps.map(([term, value]) =>
        value === undefined ? null : (
          <div key={term} style={{ display: 'contents' }}>
            <dt>{term}</dt>
            <dd data-fact={term.toLowerCase().replace(/ /g, '-')}>{value}</dd>
          </div>
        ),
      )}
      <dt>Pending approvals</dt>
      <dd data-fact="approvals">
        {approvals.length === 0
          ? 'none'
          : approvals.map((approval) => `${approval.toolName} (${approval.toolCallId})`).join(', ')}
      </dd>
      <dt>Control requests</dt>
      <dd data-fact="control-requests">
        {requests.length === 0
          ? 'none sent by this client'
          : requests
              .map(
                (request) =>
                  `${request.kind} ${request.status}${request.errorKind ? ` (${request.errorKind})` : ''} at ${formatClock(request.sentAt)}`,
              )
              .join('; ')}
      </dd>
    </dl>
  );
}
