import {
  type AgentRun,
  type DurableRunEvent,
  isTerminalStatus,
  type RunStatusChange,
} from '@runlight/protocol';
import { FencingError } from '../../errors/fencing-error';
import { InvalidTransitionError } from '../../errors/invalid-transition-error';
import { StoreConflictError } from '../../errors/store-conflict-error';
import { evolveRun } from './evolve-run';
import type { Mutation, StoredRun } from './stored-run';

/**
 * What every reducer shares (`reducer.ts`, `assistant-reducer.ts`): the owner guard and its
 * checks, the head of the next event, and the one way a record changes (`decided`).
 */
/** What every owned mutation names: who writes, under which token, on top of which revision. */
export interface OwnerGuard {
  owner: string;
  fencingToken: number;
  expectedRevision: number;
}

export const iso = (now: Date) => now.toISOString();

export function leaseUntil(now: Date, leaseMs: number): string {
  return new Date(now.getTime() + leaseMs).toISOString();
}

/** Revision, time and lease expiry of the event an owned mutation of `record` appends. */
export interface Head {
  runId: string;
  revision: number;
  at: string;
  leaseExpiresAt: string | null;
}

/**
 * The next event's head: the revision bumped by one and the owner's lease renewed — unless
 * `lease` says otherwise (`'release'`: released; `'end'`: the run ended, nobody holds it).
 */
export function headOf(
  record: StoredRun,
  now: Date,
  lease: 'renew' | 'release' | 'end' = 'renew',
): Head {
  const current = record.lease;
  const leaseExpiresAt =
    lease !== 'renew'
      ? null
      : current && current.owner === record.run.owner
        ? leaseUntil(now, current.leaseMs)
        : (current?.expiresAt ?? null);
  return { runId: record.run.id, revision: record.run.revision + 1, at: iso(now), leaseExpiresAt };
}

/** Decided: the event, and the record it evolves — the one way a record changes. */
export function decided(record: StoredRun, event: DurableRunEvent): Mutation {
  return { record: evolveRun(record, event), event };
}

export function checkGuard(record: StoredRun, guard: OwnerGuard): void {
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

export function checkRunning(record: StoredRun): void {
  const { run } = record;
  if (isTerminalStatus(run.status)) {
    throw new InvalidTransitionError(run.id, 'run-ended', `the run already ended ${run.status}`);
  }
  if (run.status !== 'running') {
    throw new InvalidTransitionError(run.id, 'run-not-acquired', 'the run has not been acquired');
  }
}

/** The `run-status` event of a change to `status`, `owner`, `fencingToken` or `failure`. */
export function statusChange(
  head: Head,
  change: RunStatusChange,
  run: Pick<AgentRun, 'status' | 'owner' | 'fencingToken' | 'failure' | 'trace' | 'handOff'>,
): DurableRunEvent {
  return {
    type: 'run-status',
    ...head,
    change,
    status: run.status,
    owner: run.owner,
    fencingToken: run.fencingToken,
    failure: run.failure,
    // The trace is a fact of the run's creation: only its `created` event carries it.
    ...(change === 'created' && run.trace ? { trace: run.trace } : {}),
    // The planned hand-off rides on every status change while the record holds it, so that
    // `evolveRun` (and a client merging events) takes it from the event alone.
    ...(run.handOff ? { handOff: { ...run.handOff } } : {}),
  };
}
