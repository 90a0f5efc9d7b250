import {
  type AgentRun,
  isTerminalPhase,
  isTerminalStatus,
  pendingApprovals,
} from '@runlight/protocol';
import { FencingError } from '../../errors/fencing-error';
import { InvalidTransitionError } from '../../errors/invalid-transition-error';
import { StoreConflictError } from '../../errors/store-conflict-error';
import type { TerminalCommit } from '../../store/log/reducer';
import { OwnedRun } from '../../store/owned-run';
import type { CheckpointWriter } from '../checkpoints/checkpoint-writer';
import { type ExecutionContext, now } from '../execution-context';
import type { OperationRecorder } from './operation-recorder';
import { handOffExecution } from './shutdown';

/**
 * Ends one execution: the last batch is checkpointed, an operation still open is ended, and
 * the run is committed `completed`, `failed` (with the failure named by its owner) or
 * `cancelled` — or left `running` while its message awaits tool approvals, or handed off
 * (`running`, its lease expired now) when a graceful shutdown stopped it. After a lost lease
 * nothing is written; the run is returned as the store holds it.
 *
 * @example
 * return await endExecution(context, recorder, writer);
 */
export async function endExecution(
  context: ExecutionContext,
  recorder: OperationRecorder,
  writer: CheckpointWriter,
): Promise<AgentRun> {
  const stop = context.stop;
  if (!stop.lost) await writer.checkpoint('if-changed');
  // An operation's end queued by another part (the middleware, a stream observer) lands — or
  // fails and names its failure — before the end is decided from what this execution knows.
  await context.owned.settled();
  if (stop.lost) return lostRun(context);

  const awaitingApproval = !stop.stopped() && pendingApprovals(writer.lastMessage).length > 0;
  const current = recorder.current;
  if (current && !isTerminalPhase(current.phase) && !stop.writesBroken) {
    if (!stop.aborted()) stop.fail('internal', current.id);
    await recorder.endOperation(current.id, stop.failure ? 'failed' : 'cancelled');
  }
  if (stop.lost) return lostRun(context);
  // A paused run holds no lease: nobody's silence to detect, nothing for recovery to take over.
  if (awaitingApproval && !stop.stopped()) {
    context.pausedForApproval = true;
    return releaseForApproval(context);
  }

  // A graceful shutdown: the text is checkpointed and the operation ended; the run goes on
  // with another runner, which recovery lets take it over at once.
  if (stop.handingOff()) return handOffExecution(context);

  const terminal = stop.failure
    ? { status: 'failed' as const, failure: stop.failure }
    : stop.aborted()
      ? { status: 'cancelled' as const }
      : { status: 'completed' as const };
  try {
    if (stop.writesBroken) return await recoverAndFail(context);
    return await context.owned.commitTerminal(terminal);
  } catch (error) {
    if (FencingError.isInstance(error)) {
      stop.loseOwnership();
      return currentRun(context);
    }
    if (StoreConflictError.isInstance(error)) {
      stop.fail('storage_conflict');
      return recoverAndFail(context);
    }
    if (InvalidTransitionError.isInstance(error) && error.rule === 'operation-in-flight') {
      // The store holds an operation this execution believed ended (its end did not land):
      // end it from a fresh read, then commit the same terminal.
      return recoverAndFail(context, terminal);
    }
    // E.g. the store kept failing (`StoreUnavailableError`) even for the terminal write: the
    // run stays `running` and its lease expires, so a recovery pass can take it over.
    context.log(
      'error',
      'The terminal commit failed; the run stays running until its lease expires',
      error,
    );
    return currentRun(context);
  }
}

/**
 * After a lost compare-and-set (or a store that kept failing) the handle may name a stale
 * revision. If this runtime still
 * holds the run, a fresh handle records the in-flight operation failed and ends the run
 * with the failure (`storage_conflict` unless another owner was named first).
 */
async function recoverAndFail(
  context: ExecutionContext,
  intended?: TerminalCommit,
): Promise<AgentRun> {
  const failure = context.stop.failure;
  const terminal: TerminalCommit = failure
    ? { status: 'failed', failure }
    : (intended ?? { status: 'failed', failure: { code: 'storage_conflict' } });
  try {
    for (let round = 1; ; round++) {
      // A mutation queued before the stop may still land: read the run after it settled.
      await context.owned.settled();
      const fresh = await context.deps.publishing.getRun(context.runId);
      if (
        fresh.owner !== context.owned.owner ||
        fresh.fencingToken !== context.owned.fencingToken ||
        isTerminalStatus(fresh.status)
      ) {
        return fresh;
      }
      context.owned = new OwnedRun(context.deps.publishing, fresh, { queue: context.deps.queue });
      try {
        const current = fresh.lastOperation;
        if (current && !isTerminalPhase(current.phase)) {
          const phase = terminal.status === 'cancelled' ? 'cancelled' : 'failed';
          await context.owned.recordRunOperation({ ...current, phase, endedAt: now() });
        }
        return await context.owned.commitTerminal(terminal);
      } catch (error) {
        // Another of this execution's writes landed in between: read again (bounded).
        const raced =
          StoreConflictError.isInstance(error) ||
          (InvalidTransitionError.isInstance(error) && error.rule === 'operation-in-flight');
        if (!raced || round >= 3) throw error;
      }
    }
  } catch (error) {
    context.log('error', 'The run could not be ended after a store failure', error);
    return currentRun(context);
  }
}

/** Releases the lease of a run pausing for approvals; a failure leaves it to expire instead. */
async function releaseForApproval(context: ExecutionContext): Promise<AgentRun> {
  try {
    return await context.owned.releaseLease();
  } catch (error) {
    if (FencingError.isInstance(error)) context.stop.loseOwnership();
    else context.log('warn', 'The lease of the paused run could not be released', error);
    return currentRun(context);
  }
}

/**
 * The run as the store holds it, or as this execution last wrote it when the store cannot
 * be read: an execution ends with a result, never a throw.
 *
 * @example
 * return currentRun(context);
 */
export async function currentRun(context: ExecutionContext): Promise<AgentRun> {
  try {
    return await context.deps.publishing.getRun(context.runId);
  } catch {
    return context.owned.run;
  }
}

/** The run as the new owner left it; this process's telemetry lets the run's spans go. */
function lostRun(context: ExecutionContext): Promise<AgentRun> {
  context.deps.telemetry?.release(context.runId);
  return currentRun(context);
}
