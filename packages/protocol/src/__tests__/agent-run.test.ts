import { describe, expect, it } from 'vitest';
import {
  safeParseAgentRun,
  safeParseRunEvent,
  safeParseRunReset,
  safeParseRunSnapshot,
  UIMessageChunkSchema,
} from '../index';

const T0 = '2026-12-02T12:00:00.000Z';
const run = {
  id: 'run-1',
  status: 'running',
  owner: 'worker-a',
  fencingToken: 1,
  revision: 2,
  lastOperation: null,
  failure: null,
  leaseExpiresAt: null,
  createdAt: T0,
  updatedAt: T0,
};

function issuesOf(result: ReturnType<typeof safeParseAgentRun>) {
  return result.success
    ? []
    : result.error.issues.map((issue) => `${issue.path}: ${issue.message}`);
}

describe('AgentRunSchema', () => {
  it('accepts a running run and a failed run with a code', () => {
    expect(safeParseAgentRun(run).success).toBe(true);
    const failed = { ...run, status: 'failed', failure: { code: 'storage_conflict' } };
    expect(safeParseAgentRun(failed).success).toBe(true);
  });

  it.each([
    ['a failed run without a failure', { ...run, status: 'failed' }, 'failure: is required'],
    [
      'a failure on a completed run',
      { ...run, status: 'completed', failure: { code: 'internal' } },
      'failure: is only allowed on a failed run',
    ],
    [
      'a failure with free text',
      { ...run, status: 'failed', failure: { code: 'provider_failure', message: 'key sk-1' } },
      'failure',
    ],
    [
      'an unknown failure code',
      { ...run, status: 'failed', failure: { code: 'oops' } },
      'failure.code',
    ],
    ['a fractional revision', { ...run, revision: 1.5 }, 'revision: must be an integer'],
    ['a run id with a slash', { ...run, id: 'a/b' }, 'id: may only contain'],
  ])('rejects %s', (_name, value, expected) => {
    expect(issuesOf(safeParseAgentRun(value)).join('\n')).toContain(expected);
  });
});

describe('RunEventSchema', () => {
  const base = { runId: 'run-1', revision: 3, at: T0 };
  const message = { id: 'm', role: 'assistant', parts: [{ type: 'text', text: 'hi' }] };

  it('accepts each durable family member and a live delta', () => {
    for (const event of [
      {
        type: 'run-operation',
        ...base,
        operation: { id: 'c:step-0', kind: 'compaction', phase: 'started', step: 0, startedAt: T0 },
      },
      { type: 'assistant-checkpoint', ...base, checkpoint: { message, revision: 3 } },
      {
        type: 'assistant-append',
        ...base,
        messageId: 'm',
        baseRevision: 2,
        chunks: [{ type: 'text-delta', id: 't', delta: 'hi' }],
      },
      {
        type: 'run-status',
        ...base,
        change: 'acquired',
        status: 'running',
        owner: 'w',
        fencingToken: 1,
        failure: null,
      },
      {
        type: 'run-delta',
        runId: 'run-1',
        baseRevision: 0,
        seq: 1,
        chunk: { type: 'text-delta', id: 't', delta: 'x' },
      },
    ]) {
      expect(safeParseRunEvent(event)).toMatchObject({ success: true });
    }
  });

  it.each([
    ['an unknown event type', { type: 'run-exploded', ...base }],
    [
      'a durable event at revision 0',
      {
        type: 'run-status',
        ...base,
        revision: 0,
        change: 'created',
        status: 'queued',
        owner: null,
        fencingToken: 0,
        failure: null,
      },
    ],
    [
      'a checkpoint whose revision differs from the event',
      { type: 'assistant-checkpoint', ...base, checkpoint: { message, revision: 2 } },
    ],
    [
      'an append without chunks',
      { type: 'assistant-append', ...base, messageId: 'm', baseRevision: 2, chunks: [] },
    ],
    [
      'an append that does not extend an earlier revision',
      {
        type: 'assistant-append',
        ...base,
        messageId: 'm',
        baseRevision: 3,
        chunks: [{ type: 'text-delta', id: 't', delta: 'x' }],
      },
    ],
    [
      'an append with an unknown field',
      {
        type: 'assistant-append',
        ...base,
        messageId: 'm',
        baseRevision: 0,
        chunks: [{ type: 'text-start', id: 't' }],
        message,
      },
    ],
    [
      'a delta with seq 0',
      {
        type: 'run-delta',
        runId: 'run-1',
        baseRevision: 0,
        seq: 0,
        chunk: { type: 'text-delta', id: 't', delta: 'x' },
      },
    ],
    [
      'a delta whose text is not a string',
      {
        type: 'run-delta',
        runId: 'run-1',
        baseRevision: 0,
        seq: 1,
        chunk: { type: 'text-delta', id: 't', delta: 5 },
      },
    ],
    [
      'a delta with an unknown chunk type',
      { type: 'run-delta', runId: 'run-1', baseRevision: 0, seq: 1, chunk: { type: 'telepathy' } },
    ],
  ])('rejects %s', (_name, value) => {
    expect(safeParseRunEvent(value).success).toBe(false);
  });

  it('accepts data chunks and keeps fields a newer SDK adds', () => {
    const chunk = { type: 'text-delta', id: 't', delta: 'x', futureField: 1 };
    expect(UIMessageChunkSchema.parse(chunk)).toEqual(chunk);
    expect(UIMessageChunkSchema.safeParse({ type: 'data-weather', data: { c: 20 } }).success).toBe(
      true,
    );
  });
});

describe('RunSnapshotSchema', () => {
  it('requires the snapshot revision to be the run revision', () => {
    expect(safeParseRunSnapshot({ run, assistant: null, revision: 2 }).success).toBe(true);
    const result = safeParseRunSnapshot({ run, assistant: null, revision: 3 });
    expect(result.success).toBe(false);
    expect(result.success ? '' : result.error.message).toContain(
      'revision: must equal run.revision',
    );
  });

  it('rejects an assistant checkpoint newer than the snapshot', () => {
    const assistant = { message: { id: 'm', role: 'assistant', parts: [] }, revision: 5 };
    const result = safeParseRunSnapshot({ run, assistant, revision: 2 });
    expect(result.success ? '' : result.error.message).toContain('assistant.revision');
  });
});

describe('RunResetSchema', () => {
  it('accepts a reset order and rejects one without a run or with a long reason', () => {
    expect(safeParseRunReset({ type: 'reset', runId: 'run-1', reason: 'gone' }).success).toBe(true);
    expect(safeParseRunReset({ type: 'reset', reason: 'gone' }).success).toBe(false);
    const long = { type: 'reset', runId: 'run-1', reason: 'x'.repeat(501) };
    expect(safeParseRunReset(long).success).toBe(false);
  });
});
