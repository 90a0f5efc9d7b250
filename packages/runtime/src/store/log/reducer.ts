import {
  type AgentRun,
  type DurableRunEvent,
  isTerminalPhase,
  isTerminalStatus,
  parseRunOperation,
  parseRunTrace,
  phaseRank,
  type RunFailure,
  type RunOperation,
  type RunStatusChange,
  type RunTrace,
} from '@runlight/protocol';
import { FencingError } from '../../errors/fencing-error';
import { InvalidTransitionError } from '../../errors/invalid-transition-error';
import { evolveRun } from './evolve-run';
import {
  checkGuard,
  checkRunning,
  decided,
  headOf,
  iso,
  leaseUntil,
  type OwnerGuard,
  statusChange,
} from './reducer-rules';
import type { Mutation, StoredRun } from './stored-run';

/**
 * The reference reducer: one pure function per mutation kind. Each validates owner, fencing
 * token, revision and the state machine, and returns the next record with exactly one durable
 * event carrying `revision + 1` — or throws a typed error and changes nothing.
 *
 * Drivers built through `createAgentRuntimeStore` get these rules for free.
 */

export {
  type AssistantAppend,
  reduceAppendAssistant,
  reduceSaveAssistantCheckpoint,
} from './assistant-reducer';
export type { OwnerGuard } from './reducer-rules';

export type TerminalCommit =
  | { status: 'completed' }
  | { status: 'cancelled' }
  | { status: 'failed'; failure: RunFailure };

export type TerminalResult = Mutation | { duplicate: StoredRun };

/** The `run-status` event the reducer appended for a mutation that produced `run`. */
export function statusEvent(run: AgentRun, change: RunStatusChange): DurableRunEvent {
  const { id: runId, revision, updatedAt: at, leaseExpiresAt } = run;
  return statusChange({ runId, revision, at, leaseExpiresAt }, change, run);
}

export function reduceCreateRun(
  existing: StoredRun | null,
  input: { runId: string; trace?: RunTrace },
  now: Date,
): Mutation {
  if (existing) {
    throw new InvalidTransitionError(input.runId, 'run-exists', 'a run with this id exists');
  }
  const head = { runId: input.runId, revision: 1, at: iso(now), leaseExpiresAt: null };
  const event = statusChange(head, 'created', {
    status: 'queued',
    owner: null,
    fencingToken: 0,
    failure: null,
    // Validated here, a trust boundary: a trace that would not parse must never be stored.
    ...(input.trace ? { trace: parseRunTrace(input.trace) } : {}),
  });
  return { record: evolveRun(null, event), event };
}

/** True when the record holds a lease that ran out by `now` (its owner went silent). */
export function leaseExpired(record: StoredRun, now: Date): boolean {
  return record.lease !== null && Date.parse(record.lease.expiresAt) <= now.getTime();
}

/**
 * Grants `owner` a lease and a new fencing token. Another owner acquires only after the
 * current lease expired; the same owner may re-acquire at any time (a new token fences its
 * own older executions too). An acquisition that replaces an expired lease is a takeover and
 * is counted (`takeovers`); one of a run nobody leases (queued, paused) is not.
 *
 * `takeover: true` (the recovery loop) acquires only a run whose lease expired: a run paused
 * without a lease is `run-not-leased`, a live lease `lease-held`.
 */
export function reduceAcquireRun(
  record: StoredRun,
  input: { owner: string; leaseMs: number; takeover?: boolean },
  now: Date,
): Mutation {
  const { run, lease } = record;
  if (isTerminalStatus(run.status)) {
    throw new InvalidTransitionError(run.id, 'run-ended', `the run already ended ${run.status}`);
  }
  const expired = leaseExpired(record, now);
  if (input.takeover && lease === null) {
    throw new InvalidTransitionError(
      run.id,
      'run-not-leased',
      'nobody leases the run (queued or paused): there is nothing to take over',
    );
  }
  if (lease && !expired && (input.takeover || lease.owner !== input.owner)) {
    throw new FencingError(run.id, 'lease-held', {
      owner: input.owner,
      currentOwner: run.owner,
      currentFencingToken: run.fencingToken,
    });
  }
  // The event names the lease's expiry; the lease's duration is that expiry minus `at`.
  const head = { ...headOf(record, now), leaseExpiresAt: leaseUntil(now, input.leaseMs) };
  const event = statusChange(head, 'acquired', {
    status: 'running',
    owner: input.owner,
    fencingToken: run.fencingToken + 1,
    failure: run.failure,
    ...receivedHandOff(record, input.owner),
  });
  return decided(record, event);
}

/**
 * The hand-off an acquisition receives: the one the handed-off lease it replaces names, now
 * with its receiver. Any other acquisition (a resume, a crash's takeover, a later one) ends
 * the record of an earlier hand-off.
 */
function receivedHandOff(record: StoredRun, owner: string): Pick<AgentRun, 'handOff'> {
  const handOff = record.run.handOff;
  if (handOff === undefined || handOff.to !== undefined || !record.lease?.handedOff) return {};
  return { handOff: { ...handOff, to: owner } };
}

/**
 * Renews the owner's lease and nothing else: what an idle owner (a long provider wait, a slow
 * tool) writes so that its lease does not expire. Cheap by design — the record changes only in
 * its revision and lease, never in its assistant message.
 */
export function reduceRenewLease(record: StoredRun, guard: OwnerGuard, now: Date): Mutation {
  checkGuard(record, guard);
  checkRunning(record);
  return decided(record, statusChange(headOf(record, now), 'lease-renewed', record.run));
}

/**
 * Releases the owner's lease: `lease` and `run.leaseExpiresAt` become null, the owner and its
 * fencing token stay. What an execution pausing for tool approvals writes — a paused run has
 * no live owner whose silence could mean a crash, so it is neither shown stalled nor taken
 * over by recovery, and whoever resumes it acquires it at once.
 */
export function reduceReleaseLease(record: StoredRun, guard: OwnerGuard, now: Date): Mutation {
  checkGuard(record, guard);
  checkRunning(record);
  return decided(
    record,
    statusChange(headOf(record, now, 'release'), 'lease-released', record.run),
  );
}

/**
 * Hands the owner's lease off: the lease expires now (`leaseExpiresAt` is the event's time),
 * the owner and its fencing token stay. What an execution stopped by a graceful shutdown
 * (`runtime.close()`) writes after its last checkpoint — the run stays `running`, and another
 * runner's recovery finds it expired at once instead of after a whole lease.
 */
export function reduceHandOffLease(record: StoredRun, guard: OwnerGuard, now: Date): Mutation {
  checkGuard(record, guard);
  checkRunning(record);
  const head = { ...headOf(record, now), leaseExpiresAt: iso(now) };
  // Who handed over, and when; to whom is known once another owner acquires the run.
  const handOff = { from: guard.owner, at: head.at };
  return decided(record, statusChange(head, 'lease-handed-off', { ...record.run, handOff }));
}

/**
 * Replaces `lastOperation`. A new operation (a new id) starts in phase `started`, only when
 * the previous one is terminal or there is none, never at a step before the last one, and
 * never reuses an id of this run (checked against the ids of the current step: steps only move
 * forward, and a model-request id names its step). An update
 * names the current id, keeps kind, step, `startedAt` (and `firstOutputAt` once set) and moves
 * the phase strictly forward.
 */
export function reduceRecordRunOperation(
  record: StoredRun,
  guard: OwnerGuard,
  input: RunOperation,
  now: Date,
): Mutation {
  const operation = parseRunOperation(input);
  checkGuard(record, guard);
  checkRunning(record);
  const runId = record.run.id;
  const current = record.run.lastOperation;
  const fail = (rule: ConstructorParameters<typeof InvalidTransitionError>[1], detail: string) => {
    throw new InvalidTransitionError(runId, rule, detail);
  };

  const operations = record.operations;
  if (current === null || current.id !== operation.id) {
    if (current !== null && !isTerminalPhase(current.phase)) {
      fail('operation-in-flight', `operation ${current.id} is still ${current.phase}`);
    }
    const step = operation.step ?? operations.step;
    if (step < operations.step) {
      fail(
        'operation-step-backwards',
        `operation ${operation.id} is at step ${step}, before step ${operations.step}`,
      );
    }
    if (step === operations.step && operations.ids.includes(operation.id)) {
      fail('operation-id-reused', `operation id ${operation.id} was used before in this run`);
    }
    if (operation.phase !== 'started') {
      fail('operation-must-start', `a new operation must be recorded as started first`);
    }
  } else {
    if (current.kind !== operation.kind || current.step !== operation.step) {
      fail('operation-identity-changed', `operation ${current.id} changed its kind or step`);
    }
    if (phaseRank(operation.phase) <= phaseRank(current.phase)) {
      fail(
        'phase-not-forward',
        `${current.id} cannot move from ${current.phase} to ${operation.phase}`,
      );
    }
    if (current.startedAt !== operation.startedAt) {
      fail('started-at-changed', `startedAt of ${current.id} must be carried unchanged`);
    }
    if (current.firstOutputAt !== undefined && current.firstOutputAt !== operation.firstOutputAt) {
      fail('first-output-at-changed', `firstOutputAt of ${current.id} must be carried unchanged`);
    }
  }

  return decided(record, { type: 'run-operation', ...headOf(record, now), operation });
}

function sameTerminal(run: AgentRun, terminal: TerminalCommit): boolean {
  if (run.status !== terminal.status) return false;
  if (terminal.status !== 'failed') return true;
  return (
    run.failure?.code === terminal.failure.code &&
    run.failure?.operationId === terminal.failure.operationId
  );
}

/**
 * Ends the run. Idempotent: the same terminal commit repeated by the same owner returns the
 * stored record and appends no second event, whatever revision it names, so a caller may
 * retry it a bounded number of times. A different terminal after a terminal is rejected.
 */
export function reduceCommitTerminal(
  record: StoredRun,
  guard: OwnerGuard,
  terminal: TerminalCommit,
  now: Date,
): TerminalResult {
  const { run } = record;
  if (isTerminalStatus(run.status)) {
    checkGuard(record, { ...guard, expectedRevision: run.revision });
    if (sameTerminal(run, terminal)) return { duplicate: record };
    throw new InvalidTransitionError(
      run.id,
      'terminal-differs',
      `the run already ended ${run.status}`,
    );
  }
  checkGuard(record, guard);
  checkRunning(record);
  const current = run.lastOperation;
  if (current && !isTerminalPhase(current.phase)) {
    throw new InvalidTransitionError(
      run.id,
      'operation-in-flight',
      `operation ${current.id} is still ${current.phase}; record its terminal phase first`,
    );
  }
  const event = statusChange(headOf(record, now, 'end'), terminal.status, {
    status: terminal.status,
    owner: run.owner,
    fencingToken: run.fencingToken,
    failure: terminal.status === 'failed' ? { ...terminal.failure } : null,
    ...(run.handOff ? { handOff: run.handOff } : {}),
  });
  return decided(record, event);
}
