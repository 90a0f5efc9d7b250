import { assistantMessage, compaction, modelRequest, T0, T1 } from '@runlight/test-utils';
import { describe, expect, it } from 'vitest';
import { FencingError } from '../../errors/fencing-error';
import { InvalidTransitionError } from '../../errors/invalid-transition-error';
import { StoreConflictError } from '../../errors/store-conflict-error';
import {
  reduceAcquireRun,
  reduceCommitTerminal,
  reduceCreateRun,
  reduceRecordRunOperation,
  reduceSaveAssistantCheckpoint,
} from '../log/reducer';
import { ended, firstOutput, guardOf, NOW, running } from './reducer-fixtures';

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
