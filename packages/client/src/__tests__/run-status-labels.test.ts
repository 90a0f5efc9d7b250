import type { FailureCode, RunOperation } from '@runlight/protocol';
import { at, modelRequestOperation } from '@runlight/test-utils';
import { describe, expect, it } from 'vitest';
import type { Activity } from '../select/select-activity';
import {
  type ActivityDescription,
  defaultRunStatusLabels,
  describeActivity,
  describeFailure,
  resolveRunStatusLabels,
  statusText,
} from '../words/run-status-labels';

/** A failed first attempt the AI SDK retries: the run waits for attempt 2. */
const retried: RunOperation = {
  ...modelRequestOperation('failed', { startedAt: at(1), endedAt: at(2) }),
  attempt: 1,
  failureReason: 'rate_limited',
  willRetry: true,
  maxAttempts: 3,
};

// Every framework binding (React today, Vue or Svelte tomorrow, the devtools, the CLI) words a
// moment through these functions, so the table is what a user of any of them reads.
const MOMENTS: ReadonlyArray<{
  name: string;
  activity: Activity;
  recovers?: boolean;
  reads: ActivityDescription;
}> = [
  {
    name: 'streaming',
    activity: { kind: 'streaming', since: at(2) },
    reads: { label: 'Writing the answer', detail: undefined },
  },
  {
    name: 'a retry wait names the attempt it waits for, out of the attempts in all',
    activity: { kind: 'waiting-for-model', attempt: 2, operation: retried },
    reads: { label: 'Waiting to retry the model (attempt 2 of 3)', detail: undefined },
  },
  {
    name: 'a retry attempt without output yet',
    activity: {
      kind: 'waiting-for-model',
      attempt: 2,
      operation: { ...modelRequestOperation('started'), attempt: 2 },
    },
    reads: { label: 'Waiting for the model (attempt 2 of the request)', detail: undefined },
  },
  {
    name: 'a stalled run claims no recovery by default',
    activity: { kind: 'stalled', since: at(5) },
    reads: { label: 'The worker stopped responding', detail: undefined },
  },
  {
    name: 'a stalled run where recovery runs',
    activity: { kind: 'stalled', since: at(5) },
    recovers: true,
    reads: { label: 'The worker stopped responding — recovering', detail: undefined },
  },
  {
    name: 'a failure names its owner, never provider text',
    activity: { kind: 'failed', failure: { code: 'storage_conflict' } },
    reads: { label: 'Failed', detail: 'Storage conflict' },
  },
  {
    name: 'a failure without a code reads as internal',
    activity: { kind: 'failed' },
    reads: { label: 'Failed', detail: 'Internal error' },
  },
  {
    name: 'an activity kind from a newer server falls back to working',
    activity: { kind: 'thinking' as Activity['kind'] },
    reads: { label: 'Working', detail: undefined },
  },
];

describe('describeActivity', () => {
  it.each(MOMENTS)('$name', ({ activity, recovers, reads }) => {
    expect(
      describeActivity(activity, defaultRunStatusLabels, { recovers: recovers === true }),
    ).toEqual(reads);
  });

  it('maps the failure codes of the brief to their human labels', () => {
    expect(defaultRunStatusLabels.failure.provider_failure).toBe('The model provider failed');
    expect(defaultRunStatusLabels.failure.storage_conflict).toBe('Storage conflict');
    expect(defaultRunStatusLabels.failure.ownership_lost).toBe('Another worker took over');
  });

  it('reads a failure code from a newer server as an internal error, not nothing', () => {
    expect(describeFailure('quota_exceeded' as FailureCode, defaultRunStatusLabels)).toBe(
      'Internal error',
    );
  });
});

describe('resolveRunStatusLabels', () => {
  it('merges overrides over the defaults, keeping every text it does not name', () => {
    const labels = resolveRunStatusLabels({
      activity: { streaming: 'Schreibt…' },
      failure: { ownership_lost: 'Übernommen' },
      attempt: (number) => `Versuch ${number}`,
    });
    expect(labels.activity.streaming).toBe('Schreibt…');
    expect(labels.activity.queued).toBe('Queued');
    expect(labels.failure.ownership_lost).toBe('Übernommen');
    expect(labels.failure.internal).toBe('Internal error');
    expect(labels.attempt(2)).toBe('Versuch 2');
    expect(labels.retryWait(2)).toBe('Waiting to retry the model (attempt 2 of the request)');
  });

  it('without overrides is the defaults themselves', () => {
    expect(resolveRunStatusLabels()).toBe(defaultRunStatusLabels);
  });
});

describe('statusText', () => {
  it('names the failure after a colon, and is the label alone otherwise', () => {
    expect(statusText({ label: 'Failed', detail: 'Storage conflict' })).toBe(
      'Failed: Storage conflict',
    );
    expect(statusText({ label: 'Queued', detail: undefined })).toBe('Queued');
  });
});
