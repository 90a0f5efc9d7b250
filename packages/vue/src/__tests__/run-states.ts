import type { RunStatusLabelsInput } from '@runlight/client';
import type { AgentRun, RunOperation, RunSnapshot } from '@runlight/protocol';
import {
  approvalMessage,
  at,
  checkpoint,
  compactionOperation,
  modelRequestOperation,
  snapshot,
} from '@runlight/test-utils';
import type { SnapshotAnswer } from '../../../react/src/__tests__/fake-run-server';

/** One run state both bindings render: what the server answers, and when the page looks. */
export interface RunStateCase {
  name: string;
  /** Seconds after the run's creation on the (faked) clock. */
  now: number;
  /** The snapshot answer; `pending` answers nothing (the loading state). */
  answer: SnapshotAnswer | 'pending';
  recovers?: boolean;
  labels?: RunStatusLabelsInput;
  /** How long the page runs before it is compared (a 404 is retried for 30 s); default 1 s. */
  runMs?: number;
}

const running = (operation: RunOperation | null, run: Partial<AgentRun> = {}): RunSnapshot =>
  snapshot(5, { lastOperation: operation, ...run });

const failedFirst: RunOperation = {
  ...modelRequestOperation('failed', { startedAt: at(1), firstOutputAt: at(1.5), endedAt: at(2) }),
  id: 'model-request:step-0:attempt-1',
  attempt: 1,
  failureReason: 'rate_limited',
  willRetry: true,
  retryAt: at(6),
  maxAttempts: 3,
};
const secondAttempt: RunOperation = {
  ...modelRequestOperation('started', { startedAt: at(6) }),
  id: 'model-request:step-0:attempt-2',
  attempt: 2,
  requestStartedAt: at(1),
};
const finished = (status: AgentRun['status'], run: Partial<AgentRun> = {}) =>
  snapshot(9, {
    status,
    owner: null,
    lastOperation: modelRequestOperation('completed', { endedAt: at(7) }),
    updatedAt: at(8),
    ...run,
  });

/** The same run states for React's RunStatus and Vue's: every activity, failure and load failure. */
export const RUN_STATES: RunStateCase[] = [
  { name: 'loading', now: 3, answer: 'pending' },
  { name: 'queued', now: 3, answer: { json: snapshot(1, { status: 'queued', owner: null }) } },
  { name: 'working, no operation yet', now: 3, answer: { json: running(null) } },
  {
    name: 'waiting for the model',
    now: 3.4,
    answer: { json: running(modelRequestOperation('started')) },
  },
  {
    name: 'streaming',
    now: 12,
    answer: { json: running(modelRequestOperation('first-output')) },
  },
  {
    name: 'streaming, labels in German',
    now: 12,
    answer: { json: running(modelRequestOperation('first-output')) },
    labels: { activity: { streaming: 'Schreibt die Antwort' } },
  },
  { name: 'compacting', now: 4, answer: { json: running(compactionOperation('started')) } },
  {
    name: 'the retry wait, counting down',
    now: 3.2,
    answer: { json: running(failedFirst) },
  },
  { name: 'a retry attempt waiting', now: 7, answer: { json: running(secondAttempt) } },
  {
    name: 'awaiting approval',
    now: 5,
    answer: {
      json: snapshot(
        5,
        { lastOperation: modelRequestOperation('completed', { endedAt: at(4) }) },
        checkpoint(4, approvalMessage),
      ),
    },
  },
  {
    name: 'stalled',
    now: 9,
    answer: { json: running(modelRequestOperation('first-output'), { leaseExpiresAt: at(6) }) },
  },
  {
    name: 'stalled where recovery runs',
    now: 9,
    recovers: true,
    answer: { json: running(modelRequestOperation('first-output'), { leaseExpiresAt: at(6) }) },
  },
  { name: 'completed', now: 30, answer: { json: finished('completed') } },
  { name: 'cancelled', now: 30, answer: { json: finished('cancelled') } },
  ...(['storage_conflict', 'ownership_lost', 'provider_failure', 'internal'] as const).map(
    (code): RunStateCase => ({
      name: `failed ${code}`,
      now: 30,
      answer: { json: finished('failed', { failure: { code } }) },
    }),
  ),
  { name: 'not created yet (404 inside the window)', now: 1, answer: { status: 404 } },
  { name: 'does not exist', now: 1, answer: { status: 404 }, runMs: 120_000 },
  { name: 'access refused', now: 1, answer: { status: 401 } },
  { name: 'bad data', now: 1, answer: { text: '{"run": 42}' } },
];
