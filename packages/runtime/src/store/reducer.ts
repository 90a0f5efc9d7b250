import {
  type AgentRun,
  isTerminalPhase,
  isTerminalStatus,
  parseAssistantAppendEvent,
  parseRunOperation,
  phaseRank,
  type RunFailure,
  type RunOperation,
  type RunStatusChange,
  type UIMessage,
  type UIMessageChunk,
} from '@runlight/protocol';
import { FencingError } from '../errors/fencing-error';
import { InvalidTransitionError } from '../errors/invalid-transition-error';
import { StoreConflictError } from '../errors/store-conflict-error';
import type { Mutation, StoredRun } from './stored-run';

/**
 * The reference reducer: one pure function per mutation kind. Each validates owner, fencing
 * token, revision and the state machine, and returns the next record with exactly one durable
 * event carrying `revision + 1` — or throws a typed error and changes nothing.
 *
 * Drivers built through `createAgentRuntimeStore` get these rules for free.
 */

/** What every owned mutation names: who writes, under which token, on top of which revision. */
export interface OwnerGuard {
  owner: string;
  fencingToken: number;
  expectedRevision: number;
}

export type TerminalCommit =
  | { status: 'completed' }
  | { status: 'cancelled' }
  | { status: 'failed'; failure: RunFailure };

export type TerminalResult = Mutation | { duplicate: StoredRun };

const iso = (now: Date) => now.toISOString();

function leaseUntil(now: Date, leaseMs: number): string {
  return new Date(now.getTime() + leaseMs).toISOString();
}

/**
 * Applies `change` to the run, bumps the revision by one and renews the owner's lease; the
 * run's public `leaseExpiresAt` mirrors the lease (null once the run ended).
 */
function advance(record: StoredRun, now: Date, change: Partial<AgentRun>): StoredRun {
  const run: AgentRun = {
    ...record.run,
    ...change,
    revision: record.run.revision + 1,
    updatedAt: iso(now),
  };
  const renewed =
    record.lease && run.owner === record.lease.owner && !isTerminalStatus(run.status)
      ? { ...record.lease, expiresAt: leaseUntil(now, record.lease.leaseMs) }
      : record.lease;
  const lease = isTerminalStatus(run.status) ? null : renewed;
  run.leaseExpiresAt = lease?.expiresAt ?? null;
  return { ...record, run, lease };
}

function checkGuard(record: StoredRun, guard: OwnerGuard): void {
  const { run } = record;
  if (run.owner !== guard.owner || run.fencingToken !== guard.fencingToken) {
    throw new FencingError(
      run.id,
      run.owner !== guard.owner ? 'owner-mismatch' : 'stale-fencing-token',
      {
        owner: guard.owner,
        fencingToken: guard.fencingToken,
        currentOwner: run.owner,
        currentFencingToken: run.fencingToken,
      },
    );
  }
  if (run.revision !== guard.expectedRevision) {
    throw new StoreConflictError(run.id, guard.expectedRevision, run.revision);
  }
}

function checkRunning(record: StoredRun): void {
  const { run } = record;
  if (isTerminalStatus(run.status)) {
    throw new InvalidTransitionError(run.id, 'run-ended', `the run already ended ${run.status}`);
  }
  if (run.status !== 'running') {
    throw new InvalidTransitionError(run.id, 'run-not-acquired', 'the run has not been acquired');
  }
}

/** The `run-status` event the reducer appends for a mutation that produced `run`. */
export function statusEvent(run: AgentRun, change: RunStatusChange): Mutation['event'] {
  return {
    type: 'run-status',
    runId: run.id,
    revision: run.revision,
    at: run.updatedAt,
    leaseExpiresAt: run.leaseExpiresAt,
    change,
    status: run.status,
    owner: run.owner,
    fencingToken: run.fencingToken,
    failure: run.failure,
  };
}

export function reduceCreateRun(
  existing: StoredRun | null,
  input: { runId: string },
  now: Date,
): Mutation {
  if (existing) {
    throw new InvalidTransitionError(input.runId, 'run-exists', 'a run with this id exists');
  }
  const run: AgentRun = {
    id: input.runId,
    status: 'queued',
    owner: null,
    fencingToken: 0,
    revision: 1,
    lastOperation: null,
    failure: null,
    leaseExpiresAt: null,
    createdAt: iso(now),
    updatedAt: iso(now),
  };
  return {
    record: {
      run,
      assistant: null,
      lease: null,
      operations: { step: 0, ids: [] },
      takeovers: 0,
    },
    event: statusEvent(run, 'created'),
  };
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
  const next = advance(record, now, {
    status: 'running',
    owner: input.owner,
    fencingToken: run.fencingToken + 1,
  });
  next.lease = {
    owner: input.owner,
    leaseMs: input.leaseMs,
    expiresAt: leaseUntil(now, input.leaseMs),
  };
  next.run.leaseExpiresAt = next.lease.expiresAt;
  if (expired) next.takeovers = record.takeovers + 1;
  return { record: next, event: statusEvent(next.run, 'acquired') };
}

/**
 * Renews the owner's lease and nothing else: what an idle owner (a long provider wait, a slow
 * tool) writes so that its lease does not expire. Cheap by design — the record changes only in
 * its revision and lease, never in its assistant message.
 */
export function reduceRenewLease(record: StoredRun, guard: OwnerGuard, now: Date): Mutation {
  checkGuard(record, guard);
  checkRunning(record);
  const next = advance(record, now, {});
  return { record: next, event: statusEvent(next.run, 'lease-renewed') };
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
  const next = advance({ ...record, lease: null }, now, {});
  return { record: next, event: statusEvent(next.run, 'lease-released') };
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

  let operations = record.operations;
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
    operations =
      step === operations.step
        ? { step, ids: [...operations.ids, operation.id] }
        : { step, ids: [operation.id] };
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

  const next = advance(record, now, { lastOperation: operation });
  next.operations = operations;
  return {
    record: next,
    event: {
      type: 'run-operation',
      runId,
      revision: next.run.revision,
      at: next.run.updatedAt,
      leaseExpiresAt: next.run.leaseExpiresAt,
      operation,
    },
  };
}

function checkAssistantWrite(record: StoredRun, guard: OwnerGuard, messageId: string): void {
  checkGuard(record, guard);
  checkRunning(record);
  const current = record.assistant?.messageId;
  if (current !== undefined && current !== messageId) {
    throw new InvalidTransitionError(
      record.run.id,
      'message-id-changed',
      `the run's assistant message is ${current}, not ${messageId}`,
    );
  }
}

/**
 * Consolidates this run's assistant message (never the whole conversation): the whole message
 * at the new revision, in its `assistant-checkpoint` event. The record keeps only a pointer.
 */
export function reduceSaveAssistantCheckpoint(
  record: StoredRun,
  guard: OwnerGuard,
  message: UIMessage,
  now: Date,
): Mutation {
  const runId = record.run.id;
  if (message.role !== 'assistant') {
    throw new InvalidTransitionError(
      runId,
      'message-not-assistant',
      'a checkpoint holds the assistant message',
    );
  }
  checkAssistantWrite(record, guard, message.id);
  const next = advance(record, now, {});
  const revision = next.run.revision;
  next.assistant = { messageId: message.id, revision, consolidatedRevision: revision };
  return {
    record: next,
    event: {
      type: 'assistant-checkpoint',
      runId,
      revision,
      at: next.run.updatedAt,
      leaseExpiresAt: next.run.leaseExpiresAt,
      checkpoint: { message, revision },
    },
  };
}

/** What an append names: the message it extends, the write it builds on and its chunks. */
export interface AssistantAppend {
  messageId: string;
  /** The revision of the assistant write it extends (0: none); must be the record's last one. */
  baseRevision: number;
  chunks: readonly UIMessageChunk[];
}

/**
 * Appends UI message chunks to this run's assistant message: what a checkpoint batch added
 * since the previous assistant write, which it must name (`baseRevision`), so an append never
 * lands on a message state it was not cut from. The event is validated (at least one chunk,
 * every chunk a `UIMessageChunk`); the record only moves its pointer.
 */
export function reduceAppendAssistant(
  record: StoredRun,
  guard: OwnerGuard,
  append: AssistantAppend,
  now: Date,
): Mutation {
  checkAssistantWrite(record, guard, append.messageId);
  const runId = record.run.id;
  const base = record.assistant?.revision ?? 0;
  if (append.baseRevision !== base) {
    throw new InvalidTransitionError(
      runId,
      'append-base-changed',
      `the append extends revision ${append.baseRevision}, the last assistant write is ${base}`,
    );
  }
  const next = advance(record, now, {});
  const revision = next.run.revision;
  const event = parseAssistantAppendEvent({
    type: 'assistant-append',
    runId,
    revision,
    at: next.run.updatedAt,
    leaseExpiresAt: next.run.leaseExpiresAt,
    messageId: append.messageId,
    baseRevision: base,
    chunks: [...append.chunks],
  });
  next.assistant = {
    messageId: append.messageId,
    revision,
    consolidatedRevision: record.assistant?.consolidatedRevision ?? 0,
  };
  return { record: next, event };
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
  const next = advance(record, now, {
    status: terminal.status,
    failure: terminal.status === 'failed' ? { ...terminal.failure } : null,
  });
  return { record: next, event: statusEvent(next.run, terminal.status) };
}
