import { assistantMessage, compaction, modelRequest, T1 } from '@runlight/test-utils';
import { describe, expect, it } from 'vitest';
import { FencingError } from '../../errors/fencing-error';
import { InvalidTransitionError } from '../../errors/invalid-transition-error';
import {
  reduceAcquireRun,
  reduceCommitTerminal,
  reduceCreateRun,
  reduceRecordRunOperation,
  reduceRenewLease,
  reduceSaveAssistantCheckpoint,
} from '../log/reducer';
import { type StoredRun, StoredRunSchema } from '../log/stored-run';
import { ended, firstOutput, guardOf, LATER, NOW, running } from './reducer-fixtures';

describe('reference reducer: successful transitions', () => {
  it.each<
    [
      string,
      () => StoredRun,
      (record: StoredRun) => ReturnType<typeof reduceCreateRun>,
      Partial<StoredRun['run']>,
      string,
    ]
  >([
    [
      'acquire a queued run',
      () => reduceCreateRun(null, { runId: 'run-1' }, NOW).record,
      (r) => reduceAcquireRun(r, { owner: 'owner-a', leaseMs: 1_000 }, NOW),
      { status: 'running', owner: 'owner-a', fencingToken: 1 },
      'run-status',
    ],
    [
      'the same owner re-acquires while its lease holds (new token)',
      () => running(),
      (r) => reduceAcquireRun(r, { owner: 'owner-a', leaseMs: 1_000 }, NOW),
      { owner: 'owner-a', fencingToken: 2 },
      'run-status',
    ],
    [
      'another owner acquires after the lease expired',
      () => running(),
      (r) => reduceAcquireRun(r, { owner: 'owner-b', leaseMs: 1_000 }, LATER),
      { owner: 'owner-b', fencingToken: 2 },
      'run-status',
    ],
    [
      'start the first operation',
      () => running(),
      (r) => reduceRecordRunOperation(r, guardOf(r), modelRequest(0), NOW),
      { lastOperation: modelRequest(0) },
      'run-operation',
    ],
    [
      'started → first-output, startedAt carried',
      () => running(modelRequest(0)),
      (r) => reduceRecordRunOperation(r, guardOf(r), firstOutput(0), NOW),
      { lastOperation: firstOutput(0) },
      'run-operation',
    ],
    [
      'first-output → completed, firstOutputAt carried',
      () => running(modelRequest(0), firstOutput(0)),
      (r) =>
        reduceRecordRunOperation(
          r,
          guardOf(r),
          { ...modelRequest(0, 'completed'), firstOutputAt: T1 },
          NOW,
        ),
      { lastOperation: { ...modelRequest(0, 'completed'), firstOutputAt: T1 } },
      'run-operation',
    ],
    [
      'started → failed (no output)',
      () => running(modelRequest(0)),
      (r) => reduceRecordRunOperation(r, guardOf(r), modelRequest(0, 'failed'), NOW),
      { lastOperation: modelRequest(0, 'failed') },
      'run-operation',
    ],
    [
      'a new operation after a terminal one',
      () => running(modelRequest(0), modelRequest(0, 'completed')),
      (r) => reduceRecordRunOperation(r, guardOf(r), compaction(1), NOW),
      { lastOperation: compaction(1) },
      'run-operation',
    ],
    [
      'checkpoint the assistant message',
      () => running(),
      (r) => reduceSaveAssistantCheckpoint(r, guardOf(r), assistantMessage('hi'), NOW),
      {},
      'assistant-checkpoint',
    ],
    [
      'commit completed with no operation in flight',
      () => running(modelRequest(0), modelRequest(0, 'completed')),
      (r) =>
        reduceCommitTerminal(r, guardOf(r), { status: 'completed' }, NOW) as ReturnType<
          typeof reduceCreateRun
        >,
      { status: 'completed' },
      'run-status',
    ],
    [
      'commit failed with a code',
      () => running(),
      (r) =>
        reduceCommitTerminal(
          r,
          guardOf(r),
          { status: 'failed', failure: { code: 'storage_conflict' } },
          NOW,
        ) as ReturnType<typeof reduceCreateRun>,
      { status: 'failed', failure: { code: 'storage_conflict' } },
      'run-status',
    ],
  ])('%s', (_name, given, mutate, expected, eventType) => {
    const before = given();
    const frozen = structuredClone(before);
    const { record, event } = mutate(before);
    expect(before).toEqual(frozen); // pure: the input is untouched
    expect(record.run).toMatchObject(expected);
    expect(record.run.revision).toBe(before.run.revision + 1);
    expect(event).toMatchObject({ type: eventType, revision: record.run.revision, runId: 'run-1' });
    expect(StoredRunSchema.safeParse(record).success).toBe(true);
  });

  it('renews the lease on every owned mutation and drops it on a terminal', () => {
    const record = running();
    const at = new Date(NOW.getTime() + 5_000);
    const next = reduceSaveAssistantCheckpoint(record, guardOf(record), assistantMessage('x'), at);
    expect(next.record.lease?.expiresAt).toBe(new Date(at.getTime() + 30_000).toISOString());
    const done = reduceCommitTerminal(
      next.record,
      guardOf(next.record),
      { status: 'completed' },
      at,
    );
    expect('record' in done && done.record.lease).toBe(null);
  });

  it('makes the lease public: run.leaseExpiresAt and every event carry its expiry', () => {
    const record = running();
    expect(record.run.leaseExpiresAt).toBe(record.lease?.expiresAt);
    const at = new Date(NOW.getTime() + 7_000);
    const expiry = new Date(at.getTime() + 30_000).toISOString();
    const operation = reduceRecordRunOperation(record, guardOf(record), modelRequest(0), at);
    expect(operation.record.run.leaseExpiresAt).toBe(expiry);
    expect(operation.event.leaseExpiresAt).toBe(expiry);
    const checkpoint = reduceSaveAssistantCheckpoint(
      operation.record,
      guardOf(operation.record),
      assistantMessage('x'),
      at,
    );
    expect(checkpoint.event.leaseExpiresAt).toBe(expiry);
  });

  it('renews only the lease: a lease-renewed status event, the message untouched', () => {
    const record = reduceSaveAssistantCheckpoint(
      running(),
      guardOf(running()),
      assistantMessage('long answer'),
      NOW,
    ).record;
    const at = new Date(NOW.getTime() + 20_000);
    const { record: next, event } = reduceRenewLease(record, guardOf(record), at);
    expect(next.run.revision).toBe(record.run.revision + 1);
    expect(next.run.leaseExpiresAt).toBe(new Date(at.getTime() + 30_000).toISOString());
    expect(next.assistant).toBe(record.assistant);
    expect(next.run.lastOperation).toEqual(record.run.lastOperation);
    expect(event).toMatchObject({
      type: 'run-status',
      change: 'lease-renewed',
      status: 'running',
      leaseExpiresAt: next.run.leaseExpiresAt,
    });
    expect(() => reduceRenewLease(next, guardOf(next, { owner: 'owner-b' }), at)).toThrow(
      FencingError,
    );
  });

  it('keeps the operation-id cursor bounded by the ids of one step', () => {
    let record = running();
    for (let step = 0; step < 50; step++) {
      for (const operation of [
        compaction(step),
        compaction(step, 'completed'),
        modelRequest(step),
        modelRequest(step, 'completed'),
      ]) {
        record = reduceRecordRunOperation(record, guardOf(record), operation, NOW).record;
      }
    }
    expect(record.operations).toEqual({
      step: 49,
      ids: ['compaction:step-49', 'model-request:step-49'],
    });
  });

  it('upgrades a record stored with an operationIds list and no public lease', () => {
    const record = running(modelRequest(3), modelRequest(3, 'completed'));
    const { operations: _operations, ...rest } = record;
    const { leaseExpiresAt: _lease, ...legacyRun } = record.run;
    const legacy = {
      ...rest,
      run: legacyRun,
      operationIds: ['model-request:step-0', 'model-request:step-3'],
    };
    const parsed = StoredRunSchema.parse(legacy);
    expect(parsed.operations).toEqual({ step: 3, ids: ['model-request:step-3'] });
    expect(parsed.run.leaseExpiresAt).toBe(record.lease?.expiresAt);
    expect(() => reduceRecordRunOperation(parsed, guardOf(parsed), modelRequest(3), NOW)).toThrow(
      InvalidTransitionError,
    );
  });

  it('recognises the same terminal commit repeated as a duplicate, whatever revision it names', () => {
    const record = ended('cancelled');
    const result = reduceCommitTerminal(
      record,
      guardOf(record, { expectedRevision: 2 }),
      { status: 'cancelled' },
      LATER,
    );
    expect(result).toEqual({ duplicate: record });
  });
});
