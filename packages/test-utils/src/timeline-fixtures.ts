import type { RunOperation, RunOperationEvent } from '@runlight/protocol';
import { at, compactionOperation, operationEvent } from './protocol-fixtures';

/** Attempt `attempt` of step `step`'s model request, started `10 * step + attempt` s after T0. */
export const requestAttempt = (
  step: number,
  attempt: number,
  phase: RunOperation['phase'],
  times: Partial<RunOperation> = {},
): RunOperation => ({
  id: `model-request:step-${step}:call:attempt-${attempt}`,
  kind: 'model-request',
  phase,
  step,
  attempt,
  startedAt: at(10 * step + attempt),
  ...times,
});

/**
 * The operation history the timeline tests of every binding read: step 0 compacts, its first
 * attempt fails (rate limited, retried), the second streams and completes; step 1 has started.
 */
export const TIMELINE_HISTORY: RunOperationEvent[] = [
  operationEvent(2, compactionOperation('started', { step: 0, startedAt: at(0) })),
  operationEvent(
    3,
    compactionOperation('completed', { step: 0, startedAt: at(0), endedAt: at(1) }),
  ),
  operationEvent(4, requestAttempt(0, 1, 'started')),
  operationEvent(5, {
    ...requestAttempt(0, 1, 'failed'),
    endedAt: at(2),
    failureReason: 'rate_limited',
    willRetry: true,
  }),
  operationEvent(6, { ...requestAttempt(0, 2, 'started'), requestStartedAt: at(1) }),
  operationEvent(7, {
    ...requestAttempt(0, 2, 'first-output'),
    requestStartedAt: at(1),
    firstOutputAt: at(4),
  }),
  operationEvent(8, {
    ...requestAttempt(0, 2, 'completed'),
    requestStartedAt: at(1),
    firstOutputAt: at(4),
    endedAt: at(6),
  }),
  operationEvent(9, requestAttempt(1, 1, 'started')),
];
