import type { RunStatusLabelsInput } from '@runlight/client';
import { FAILURE_CODES, type RunOperation } from '@runlight/protocol';
import {
  approvalMessage,
  at,
  compactionOperation,
  modelRequestOperation,
  snapshot,
} from '@runlight/test-utils';
import type { SnapshotAnswer } from './harness.js';

/** One run state both bindings render: what the server answers and the status props. */
export interface RunStateCase {
  name: string;
  answer: SnapshotAnswer;
  recovers?: boolean;
  labels?: RunStatusLabelsInput;
}

const retried: RunOperation = {
  ...modelRequestOperation('failed', { startedAt: at(7), endedAt: at(8) }),
  attempt: 1,
  failureReason: 'rate_limited',
  willRetry: true,
  retryAt: at(13),
  maxAttempts: 3,
};

const json = (body: unknown): SnapshotAnswer => ({ json: body });

/**
 * Run states at client time T0+10 s, covering every activity, the retry wait, failures by
 * code, load failures and i18n labels — the same table drives React's and Svelte's status.
 */
export const RUN_STATES: RunStateCase[] = [
  { name: 'queued', answer: json(snapshot(5, { status: 'queued', owner: null, fencingToken: 0 })) },
  {
    name: 'compacting',
    answer: json(
      snapshot(5, {
        lastOperation: compactionOperation('started', { id: 'c-0', step: 0, startedAt: at(4) }),
      }),
    ),
  },
  {
    name: 'waiting for the model',
    answer: json(
      snapshot(5, { lastOperation: modelRequestOperation('started', { startedAt: at(3) }) }),
    ),
  },
  {
    name: 'waiting for a retry attempt',
    answer: json(
      snapshot(5, {
        lastOperation: {
          ...modelRequestOperation('started', { startedAt: at(7) }),
          attempt: 2,
          requestStartedAt: at(3),
        },
      }),
    ),
  },
  { name: 'the retry countdown', answer: json(snapshot(5, { lastOperation: retried })) },
  {
    name: 'streaming',
    answer: json(
      snapshot(5, {
        lastOperation: modelRequestOperation('first-output', {
          startedAt: at(3),
          firstOutputAt: at(8.8),
        }),
      }),
    ),
  },
  {
    name: 'awaiting approval',
    answer: json(
      snapshot(
        5,
        { lastOperation: modelRequestOperation('completed', { endedAt: at(6) }) },
        { revision: 4, message: approvalMessage },
      ),
    ),
  },
  {
    name: 'working',
    answer: json(
      snapshot(5, { lastOperation: modelRequestOperation('completed', { endedAt: at(9) }) }),
    ),
  },
  {
    name: 'stalled, nothing recovers it',
    answer: json(
      snapshot(5, {
        lastOperation: modelRequestOperation('first-output', { firstOutputAt: at(2) }),
        leaseExpiresAt: at(6),
      }),
    ),
  },
  {
    name: 'stalled, the provider recovers',
    recovers: true,
    answer: json(
      snapshot(5, {
        lastOperation: modelRequestOperation('first-output', { firstOutputAt: at(2) }),
        leaseExpiresAt: at(6),
      }),
    ),
  },
  {
    name: 'completed',
    answer: json(snapshot(5, { status: 'completed', owner: null, updatedAt: at(7.5) })),
  },
  {
    name: 'cancelled',
    answer: json(snapshot(5, { status: 'cancelled', owner: null, updatedAt: at(12) })),
  },
  ...FAILURE_CODES.map(
    (code): RunStateCase => ({
      name: `failed ${code}`,
      answer: json(
        snapshot(5, { status: 'failed', owner: null, failure: { code }, updatedAt: at(65) }),
      ),
    }),
  ),
  {
    name: 'failed, in German',
    labels: {
      activity: { failed: 'Fehlgeschlagen' },
      failure: { provider_failure: 'Der Modellanbieter ist ausgefallen' },
    },
    answer: json(
      snapshot(5, { status: 'failed', owner: null, failure: { code: 'provider_failure' } }),
    ),
  },
  { name: 'access refused', answer: { status: 403 } },
  { name: 'run not found', answer: { status: 404 } },
  { name: 'bad data', answer: { text: '{"run":' } },
];
