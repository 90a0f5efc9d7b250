import { at, modelRequestOperation, RUN_T0, run } from '@runlight/test-utils';
import { describe, expect, it } from 'vitest';
import { RunlightClientError } from '../errors/runlight-client-error';
import { initialRunState, type RunState } from '../merge/run-state';
import { activityEquals } from '../status/activity-equals';
import { loadFailureOf } from '../status/load-failure-of';
import { runStatusEquals, selectRunStatus } from '../status/select-run-status';

const withRun = (overrides: Parameters<typeof run>[1], revision = 5): RunState => ({
  ...initialRunState('run-1'),
  run: run(revision, overrides),
});

describe('selectRunStatus: the times a status shows run between durable timestamps only', () => {
  it('a queued run counts from its createdAt', () => {
    const status = selectRunStatus(withRun({ status: 'queued', owner: null }));
    expect(status.activity.kind).toBe('queued');
    expect(status).toMatchObject({ since: RUN_T0, until: undefined });
  });

  it('a model request counts from its own startedAt', () => {
    const operation = modelRequestOperation('started', { startedAt: at(2) });
    const status = selectRunStatus(withRun({ lastOperation: operation }));
    expect(status).toMatchObject({ since: at(2), until: undefined });
  });

  it('a finished run shows createdAt → its terminal updatedAt, which does not tick', () => {
    const status = selectRunStatus(withRun({ status: 'completed', owner: null }, 9));
    expect(status).toMatchObject({ since: RUN_T0, until: at(9) });
  });

  it('is equal across states a status shows alike (a text delta), unequal on a new activity', () => {
    const operation = modelRequestOperation('first-output');
    const before = withRun({ lastOperation: operation });
    const delta = { ...before, run: { ...before.run!, updatedAt: at(7) } };
    expect(runStatusEquals(selectRunStatus(before), selectRunStatus(delta))).toBe(true);
    const done = withRun({ lastOperation: modelRequestOperation('completed') });
    expect(runStatusEquals(selectRunStatus(before), selectRunStatus(done))).toBe(false);
    expect(activityEquals({ kind: 'working' }, { kind: 'queued' })).toBe(false);
  });
});

describe('loadFailureOf', () => {
  const loading = { kind: 'loading' } as const;
  it.each([
    ['unauthorized', 'access-refused'],
    ['run-not-found', 'not-found'],
    ['http', 'unavailable'],
    ['invalid-snapshot', 'unavailable'],
  ] as const)('a %s error while nothing loaded reads %s', (kind, failure) => {
    const error = new RunlightClientError(kind, 'refused');
    expect(loadFailureOf({ activity: loading, error })).toBe(failure);
  });

  it('is null with state to show, or with no error', () => {
    const error = new RunlightClientError('unauthorized', 'refused');
    expect(loadFailureOf({ activity: { kind: 'streaming' }, error })).toBeNull();
    expect(loadFailureOf({ activity: loading, error: null })).toBeNull();
  });
});
