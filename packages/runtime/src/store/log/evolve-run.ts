import type { AgentRun, DurableRunEvent } from '@runlight/protocol';
import type { Lease, StoredRun } from './stored-run';

/**
 * What a stored event is missing to be a durable event: its run, which the driver keys it by.
 * Storing the id in every row of a run's log would repeat it once per event.
 */
export type StoredRunEvent = DurableRunEvent extends infer E
  ? E extends DurableRunEvent
    ? Omit<E, 'runId'>
    : never
  : never;

/** Thrown by `evolveRun` for an event that cannot follow the record (a corrupt log). */
export class EventSequenceError extends Error {
  override readonly name = 'EventSequenceError';
  constructor(
    readonly revision: number,
    detail: string,
  ) {
    super(`event at revision ${revision}: ${detail}`);
  }
}

/**
 * The record after `event`: the one place a run record changes. The reducer decides (it checks
 * the rules and builds the event) and then evolves its record with this function, so a record
 * folded from the durable log is, by construction, the record the reducer returned. That is what
 * lets a driver store the record only now and then — the store folds the events written since.
 *
 * Everything a record holds follows from its events: the lease mirrors `leaseExpiresAt` (its
 * owner is the run's owner, its duration what the acquisition granted), the operation-id cursor
 * follows the operations, the takeover count the acquisitions of an expired lease, the assistant
 * pointer the assistant writes.
 *
 * @example
 * const record = events.reduce(evolveRun, snapshot); // snapshot: null before `created`
 */
export function evolveRun(record: StoredRun | null, event: DurableRunEvent): StoredRun {
  if (record === null) return created(event);
  if (event.revision !== record.run.revision + 1) {
    throw new EventSequenceError(
      event.revision,
      `does not follow the record at revision ${record.run.revision}`,
    );
  }
  const leaseExpiresAt = event.leaseExpiresAt ?? null;
  const run: AgentRun = {
    ...record.run,
    revision: event.revision,
    updatedAt: event.at,
    leaseExpiresAt,
  };
  const next: StoredRun = { ...record, run };
  switch (event.type) {
    case 'run-status': {
      run.status = event.status;
      run.owner = event.owner;
      run.fencingToken = event.fencingToken;
      run.failure = event.failure;
      // The event names the hand-off the record holds after it (see `statusChange`).
      if (event.handOff === undefined) delete run.handOff;
      else run.handOff = { ...event.handOff };
      if (event.change === 'created') {
        throw new EventSequenceError(event.revision, 'a run is created once, by its first event');
      }
      if (event.change === 'acquired') {
        const expired =
          record.lease !== null && Date.parse(record.lease.expiresAt) <= Date.parse(event.at);
        // A graceful hand-off is no crash: its takeover does not count towards poison runs.
        if (expired && !record.lease?.handedOff) next.takeovers = record.takeovers + 1;
        next.lease = leaseOf(run, leaseExpiresAt, leaseMsOf(event.at, leaseExpiresAt));
        return next;
      }
      break;
    }
    case 'run-operation': {
      const { operation } = event;
      run.lastOperation = operation;
      if (record.run.lastOperation?.id !== operation.id) {
        const step = operation.step ?? record.operations.step;
        next.operations =
          step === record.operations.step
            ? { step, ids: [...record.operations.ids, operation.id] }
            : { step, ids: [operation.id] };
      }
      break;
    }
    case 'assistant-checkpoint':
      next.assistant = {
        messageId: event.checkpoint.message.id,
        revision: event.revision,
        consolidatedRevision: event.revision,
      };
      break;
    case 'assistant-append':
      next.assistant = {
        messageId: event.messageId,
        revision: event.revision,
        consolidatedRevision: record.assistant?.consolidatedRevision ?? 0,
      };
      break;
  }
  next.lease = leaseOf(run, leaseExpiresAt, record.lease?.leaseMs);
  if (next.lease && event.type === 'run-status' && event.change === 'lease-handed-off') {
    next.lease = { ...next.lease, handedOff: true };
  }
  return next;
}

function created(event: DurableRunEvent): StoredRun {
  if (event.type !== 'run-status' || event.change !== 'created' || event.revision !== 1) {
    throw new EventSequenceError(event.revision, 'a run begins with its `created` event');
  }
  return {
    run: {
      id: event.runId,
      status: event.status,
      owner: event.owner,
      fencingToken: event.fencingToken,
      revision: 1,
      lastOperation: null,
      failure: event.failure,
      leaseExpiresAt: null,
      createdAt: event.at,
      updatedAt: event.at,
      ...(event.trace ? { trace: event.trace } : {}),
    },
    assistant: null,
    lease: null,
    operations: { step: 0, ids: [] },
    takeovers: 0,
  };
}

function leaseMsOf(at: string, expiresAt: string | null): number | undefined {
  return expiresAt === null ? undefined : Date.parse(expiresAt) - Date.parse(at);
}

function leaseOf(
  run: AgentRun,
  expiresAt: string | null,
  leaseMs: number | undefined,
): Lease | null {
  if (expiresAt === null) return null;
  if (run.owner === null || leaseMs === undefined || leaseMs <= 0) {
    throw new EventSequenceError(run.revision, 'a lease without an owner or an acquisition');
  }
  return { owner: run.owner, expiresAt, leaseMs };
}
