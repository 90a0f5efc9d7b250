import type { RunOperation } from '@runlight/protocol';
import { assistantMessage, compaction, modelRequest, T0, T1 } from '@runlight/test-utils';
import { describe, expect, it } from 'vitest';
import { FencingError } from '../../errors/fencing-error';
import { InvalidTransitionError } from '../../errors/invalid-transition-error';
import { StoreConflictError } from '../../errors/store-conflict-error';
import {
  type OwnerGuard,
  reduceAcquireRun,
  reduceCommitTerminal,
  reduceCreateRun,
  reduceRecordRunOperation,
  reduceRenewLease,
  reduceSaveAssistantCheckpoint,
} from '../reducer';
import { type StoredRun, StoredRunSchema } from '../stored-run';

const NOW = new Date('2026-12-02T12:00:10.000Z');
const LATER = new Date('2026-12-02T12:01:00.000Z');

/** A run acquired by `owner-a` (token 1, revision 2), then `extra` applied by the reducers. */
function running(...operations: RunOperation[]): StoredRun {
  let record = reduceCreateRun(null, { runId: 'run-1' }, NOW).record;
  record = reduceAcquireRun(record, { owner: 'owner-a', leaseMs: 30_000 }, NOW).record;
  for (const operation of operations) {
    record = reduceRecordRunOperation(record, guardOf(record), operation, NOW).record;
  }
  return record;
}

function guardOf(record: StoredRun, patch: Partial<OwnerGuard> = {}): OwnerGuard {
  return {
    owner: record.run.owner ?? 'nobody',
    fencingToken: record.run.fencingToken,
    expectedRevision: record.run.revision,
    ...patch,
  };
}

function ended(status: 'completed' | 'cancelled'): StoredRun {
  const record = running();
  const result = reduceCommitTerminal(record, guardOf(record), { status }, NOW);
  if ('duplicate' in result) throw new Error('unexpected duplicate');
  return result.record;
}

const firstOutput = (step: number, id?: string) => modelRequest(step, 'first-output', id);

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

type Rejection = [string, () => unknown, (error: unknown) => boolean, string];

const fencing = (error: unknown) => FencingError.isInstance(error);
const conflict = (error: unknown) => StoreConflictError.isInstance(error);
const transition = (rule: string) => (error: unknown) =>
  InvalidTransitionError.isInstance(error) && error.rule === rule;

describe('reference reducer: rejected transitions throw typed errors', () => {
  it.each<Rejection>([
    [
      'create an existing run',
      () => reduceCreateRun(running(), { runId: 'run-1' }, NOW),
      transition('run-exists'),
      'run-exists',
    ],
    [
      'another owner acquires while the lease holds',
      () => reduceAcquireRun(running(), { owner: 'owner-b', leaseMs: 1 }, NOW),
      (error) => FencingError.isInstance(error) && error.reason === 'lease-held',
      'lease-held',
    ],
    [
      'acquire an ended run',
      () => reduceAcquireRun(ended('completed'), { owner: 'owner-a', leaseMs: 1 }, NOW),
      transition('run-ended'),
      'run-ended',
    ],
    [
      'a write under another owner',
      () => {
        const r = running();
        return reduceRecordRunOperation(r, guardOf(r, { owner: 'owner-b' }), modelRequest(0), NOW);
      },
      (error) => FencingError.isInstance(error) && error.reason === 'owner-mismatch',
      'owner-mismatch',
    ],
    [
      'a write under a stale fencing token',
      () => {
        const r = running();
        return reduceSaveAssistantCheckpoint(
          r,
          guardOf(r, { fencingToken: 0 }),
          assistantMessage('x'),
          NOW,
        );
      },
      (error) => FencingError.isInstance(error) && error.reason === 'stale-fencing-token',
      'stale-fencing-token',
    ],
    [
      'a write naming a stale revision',
      () => {
        const r = running();
        return reduceRecordRunOperation(
          r,
          guardOf(r, { expectedRevision: 1 }),
          modelRequest(0),
          NOW,
        );
      },
      conflict,
      'revision',
    ],
    [
      'a write on a queued (not acquired) run',
      () => {
        const r = reduceCreateRun(null, { runId: 'run-1' }, NOW).record;
        return reduceRecordRunOperation(
          r,
          { owner: 'x', fencingToken: 0, expectedRevision: 1 },
          modelRequest(0),
          NOW,
        );
      },
      fencing,
      'not owned',
    ],
    [
      'a new operation while one is in flight',
      () => {
        const r = running(modelRequest(0));
        return reduceRecordRunOperation(r, guardOf(r), compaction(1), NOW);
      },
      transition('operation-in-flight'),
      'in flight',
    ],
    [
      'an operation id used before in the run',
      () => {
        const r = running(
          compaction(1),
          compaction(1, 'completed'),
          modelRequest(1),
          modelRequest(1, 'completed'),
        );
        return reduceRecordRunOperation(r, guardOf(r), compaction(1), NOW);
      },
      transition('operation-id-reused'),
      'reused',
    ],
    [
      'a new operation at a step before the last one (an id of that step could repeat)',
      () => {
        const r = running(
          modelRequest(0),
          modelRequest(0, 'completed'),
          compaction(1),
          compaction(1, 'completed'),
        );
        return reduceRecordRunOperation(r, guardOf(r), modelRequest(0), NOW);
      },
      transition('operation-step-backwards'),
      'before step 1',
    ],
    [
      'a new operation that does not start in phase started',
      () => {
        const r = running();
        return reduceRecordRunOperation(r, guardOf(r), firstOutput(0), NOW);
      },
      transition('operation-must-start'),
      'must start',
    ],
    [
      'a phase moving backwards',
      () => {
        const r = running(modelRequest(0), firstOutput(0));
        return reduceRecordRunOperation(r, guardOf(r), modelRequest(0), NOW);
      },
      transition('phase-not-forward'),
      'backwards',
    ],
    [
      'a phase repeated',
      () => {
        const r = running(modelRequest(0), firstOutput(0));
        return reduceRecordRunOperation(r, guardOf(r), firstOutput(0), NOW);
      },
      transition('phase-not-forward'),
      'repeat',
    ],
    [
      'a terminal phase changed to another terminal',
      () => {
        const r = running(modelRequest(0), modelRequest(0, 'failed'));
        return reduceRecordRunOperation(r, guardOf(r), modelRequest(0, 'cancelled'), NOW);
      },
      transition('phase-not-forward'),
      'terminal is final',
    ],
    [
      'startedAt not carried unchanged',
      () => {
        const r = running(modelRequest(0));
        return reduceRecordRunOperation(r, guardOf(r), { ...firstOutput(0), startedAt: T1 }, NOW);
      },
      transition('started-at-changed'),
      'startedAt',
    ],
    [
      'firstOutputAt not carried unchanged',
      () => {
        const r = running(modelRequest(0), firstOutput(0));
        return reduceRecordRunOperation(
          r,
          guardOf(r),
          { ...modelRequest(0, 'completed'), firstOutputAt: T0 },
          NOW,
        );
      },
      transition('first-output-at-changed'),
      'firstOutputAt',
    ],
    [
      'an update changing the kind',
      () => {
        const r = running(modelRequest(0, 'started', 'op:step-0'));
        return reduceRecordRunOperation(
          r,
          guardOf(r),
          compaction(0, 'completed', 'op:step-0'),
          NOW,
        );
      },
      transition('operation-identity-changed'),
      'kind',
    ],
    [
      'an operation that breaks a phase rule',
      () => {
        const r = running();
        return reduceRecordRunOperation(
          r,
          guardOf(r),
          { ...modelRequest(0), phase: 'first-output' },
          NOW,
        );
      },
      (error) => error instanceof Error && error.name === 'ProtocolValidationError',
      'schema',
    ],
    [
      'a checkpoint of a user message',
      () => {
        const r = running();
        return reduceSaveAssistantCheckpoint(
          r,
          guardOf(r),
          { ...assistantMessage('x'), role: 'user' },
          NOW,
        );
      },
      transition('message-not-assistant'),
      'role',
    ],
    [
      'a checkpoint replacing the message id',
      () => {
        let r = running();
        r = reduceSaveAssistantCheckpoint(r, guardOf(r), assistantMessage('a', 'm1'), NOW).record;
        return reduceSaveAssistantCheckpoint(r, guardOf(r), assistantMessage('b', 'm2'), NOW);
      },
      transition('message-id-changed'),
      'message id',
    ],
    [
      'a terminal commit with an operation in flight',
      () => {
        const r = running(modelRequest(0));
        return reduceCommitTerminal(r, guardOf(r), { status: 'completed' }, NOW);
      },
      transition('operation-in-flight'),
      'in flight',
    ],
    [
      'a different terminal after a terminal',
      () => {
        const r = ended('completed');
        return reduceCommitTerminal(r, guardOf(r), { status: 'cancelled' }, NOW);
      },
      transition('terminal-differs'),
      'differs',
    ],
    [
      'the same terminal repeated by another owner',
      () => {
        const r = ended('completed');
        return reduceCommitTerminal(
          r,
          guardOf(r, { owner: 'owner-b' }),
          { status: 'completed' },
          NOW,
        );
      },
      fencing,
      'other owner',
    ],
    [
      'an operation on an ended run',
      () => {
        const r = ended('completed');
        return reduceRecordRunOperation(r, guardOf(r), modelRequest(0), NOW);
      },
      transition('run-ended'),
      'ended',
    ],
  ])('%s', (_name, mutate, matches) => {
    let caught: unknown;
    try {
      mutate();
    } catch (error) {
      caught = error;
    }
    expect(caught, 'the reducer must throw').toBeDefined();
    expect(matches(caught), String(caught)).toBe(true);
  });
});
