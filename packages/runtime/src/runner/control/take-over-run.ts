import {
  type AgentRun,
  isTerminalPhase,
  pendingApprovals,
  type RunOperation,
  type UIMessage,
} from '@runlight/protocol';
import { convertToModelMessages } from 'ai';
import { FencingError } from '../../errors/fencing-error';
import { InvalidTransitionError } from '../../errors/invalid-transition-error';
import { OwnedRun } from '../../store/owned-run';
import { closeAbandonedParts } from '../checkpoints/abandoned-message';
import type { RunExecutionDeps } from '../execution-context';
import type { RunExecutionOptions } from '../run-options';
import type { AdoptionOutcome } from './adoption-outcome';

/** What `resolveRun` is told about the run it is asked to continue. */
export interface ResolveRunContext {
  /**
   * The assistant message as last checkpointed (the recovered execution continues it); for a
   * paused run whose answers recovery adopts, with those answers applied.
   */
  message: UIMessage | null;
  /**
   * Takeovers of this run so far, this one included (1 on the first recovery; 0 after a
   * graceful hand-off, and when adopting a paused run's answers).
   */
  takeovers: number;
}

/**
 * The application's answer to "how does this run go on?": the model, the conversation before
 * the run's assistant message, the tools (as `startRun` takes them) — or nothing, and the run
 * ends `ownership_lost`. Called only by the recoverer that won the takeover.
 */
export type ResolveRun = (
  run: AgentRun,
  context: ResolveRunContext,
) => RunExecutionOptions | null | undefined | PromiseLike<RunExecutionOptions | null | undefined>;

/**
 * How one takeover went:
 * - `recovered` — this runtime acquired the run and executes it from its last checkpoint;
 * - `ended` — acquired and ended `ownership_lost`: `resolveRun` returned nothing
 *   (`not-resolved`) or the run was taken over more than `maxAttempts` times (`max-attempts`,
 *   a poison run);
 * - `paused` — acquired a run whose owner died while pausing it for approvals; its lease is
 *   released and it waits for the answers like any paused run;
 * - `deferred` — acquired, but `resolveRun` threw (logged): the run stays with this runtime's
 *   lease, which expires, so a later takeover tries again (and counts);
 * - `adopted` — not a takeover: see `adoption`;
 * - `skipped` — not acquired: another recoverer won (`lease-held`), the run ended or nobody
 *   leases it any more (`run-ended`, `not-leased`), or it executes in this process already.
 */
export interface RecoveryOutcome {
  runId: string;
  result: 'recovered' | 'ended' | 'paused' | 'deferred' | 'skipped' | 'adopted';
  reason?:
    | 'max-attempts'
    | 'not-resolved'
    | 'resolve-failed'
    | 'lease-held'
    | 'run-ended'
    | 'not-leased'
    | 'executing-here';
  /** Takeovers of the run so far, when this runtime acquired it. */
  takeovers?: number;
  /**
   * `result: 'adopted'`: not a takeover — a control request of a run nobody leases (the process
   * that paused it is gone) was claimed here, and how that went.
   */
  adoption?: AdoptionOutcome;
}

export interface TakeOverOptions {
  runId: string;
  resolveRun: ResolveRun;
  /** Takeovers a run may have before it is ended as poison instead of resumed again. */
  maxAttempts: number;
}

/** Either an acquired run to execute, or the takeover's end (the run as it stands). */
export type TakeOver =
  | {
      kind: 'execute';
      acquired: AgentRun;
      /** The checkpointed message with the dead owner's unfinished parts closed. */
      message?: UIMessage;
      execution: RunExecutionOptions;
      messages: RunExecutionOptions['messages'];
      outcome: RecoveryOutcome;
    }
  | { kind: 'settled'; run: AgentRun; outcome: RecoveryOutcome };

type Deps = Pick<RunExecutionDeps, 'store' | 'publishing' | 'queue' | 'leaseMs' | 'log'> & {
  owner: string;
};

/**
 * One recoverer's takeover of a run whose lease expired. The acquire compare-and-set decides
 * between competing recoverers: exactly one wins; for the others it is `lease-held` (skipped).
 * The winner then either hands the run to an execution (the runtime's `recoverRun` records the
 * dead owner's in-flight operation failed, closes its streaming parts and continues the
 * checkpointed message with what `resolveRun` returned), or ends it `ownership_lost`.
 *
 * @example
 * const takeover = await takeOverRun(deps, { runId, resolveRun, maxAttempts: 3 });
 * if (takeover.kind === 'execute') execute(takeover.acquired, takeover.execution);
 */
export async function takeOverRun(deps: Deps, options: TakeOverOptions): Promise<TakeOver> {
  const { runId } = options;
  let taken: { run: AgentRun; takeovers: number };
  try {
    taken = await deps.publishing.takeOverRun(runId, { owner: deps.owner, leaseMs: deps.leaseMs });
  } catch (error) {
    const reason = notTakenReason(error);
    if (reason === null) throw error;
    return {
      kind: 'settled',
      run: await deps.store.getRun(runId),
      outcome: { runId, result: 'skipped', reason },
    };
  }
  const { run, takeovers } = taken;
  const acquired = { runId, takeovers };
  const message = (await deps.store.getSnapshot(runId)).assistant?.message ?? null;
  const inFlight = run.lastOperation && !isTerminalPhase(run.lastOperation.phase);

  if (takeovers > options.maxAttempts) {
    deps.log({
      level: 'warn',
      runId,
      message: `Taken over ${takeovers} times: ended as a poison run`,
    });
    return endLost(deps, run, message, { ...acquired, result: 'ended', reason: 'max-attempts' });
  }
  if (pendingApprovals(message).length > 0) {
    // The owner died between the approval checkpoint and releasing its lease: finish the pause.
    // The approval requests are whole (the SDK asks only once a call's input is complete), and
    // an answer may be recorded already; an operation it had not yet ended is recorded failed.
    const owned = new OwnedRun(deps.publishing, run, { queue: deps.queue });
    if (inFlight && run.lastOperation) {
      await owned.recordRunOperation({
        ...run.lastOperation,
        phase: 'failed',
        endedAt: new Date().toISOString(),
      });
    }
    return {
      kind: 'settled',
      run: await owned.releaseLease(),
      outcome: { ...acquired, result: 'paused' },
    };
  }
  // What the recovered execution continues: the dead owner's unfinished parts closed.
  const closed = message === null ? null : closeAbandonedParts(message);
  let execution: RunExecutionOptions | null | undefined;
  try {
    execution = await options.resolveRun(run, { message: closed, takeovers });
  } catch (error) {
    deps.log({
      level: 'error',
      runId,
      message: 'resolveRun failed; the run is left to expire',
      error,
    });
    return {
      kind: 'settled',
      run,
      outcome: { ...acquired, result: 'deferred', reason: 'resolve-failed' },
    };
  }
  if (!execution) {
    return endLost(deps, run, message, { ...acquired, result: 'ended', reason: 'not-resolved' });
  }
  // The model sees the text and the tool calls so far; a call the dead owner never finished
  // is a failed call (its effect may or may not have happened: see the README on idempotency)
  // and the model may make it again.
  const continued =
    closed === null || closed.parts.length === 0
      ? []
      : await convertToModelMessages([closed], {
          tools: execution.tools,
          ignoreIncompleteToolCalls: true,
        });
  return {
    kind: 'execute',
    acquired: run,
    ...(closed === null ? {} : { message: closed }),
    execution,
    messages: [...execution.messages, ...continued],
    outcome: { ...acquired, result: 'recovered' },
  };
}

/**
 * Ends an acquired run `ownership_lost`: the dead owner's operation is recorded failed, its
 * streaming parts closed, then the terminal commit (naming that operation).
 */
export async function endLost(
  deps: Deps,
  run: AgentRun,
  message: UIMessage | null,
  outcome: RecoveryOutcome,
): Promise<TakeOver> {
  const owned = new OwnedRun(deps.publishing, run, { queue: deps.queue });
  const current: RunOperation | null = run.lastOperation;
  const inFlight = current !== null && !isTerminalPhase(current.phase) ? current : null;
  if (inFlight) {
    await owned.recordRunOperation({
      ...inFlight,
      phase: 'failed',
      endedAt: new Date().toISOString(),
    });
  }
  if (message !== null) {
    const closed = closeAbandonedParts(message);
    if (closed !== message) await owned.saveAssistantCheckpoint(closed);
  }
  const failure = inFlight
    ? { code: 'ownership_lost' as const, operationId: inFlight.id }
    : { code: 'ownership_lost' as const };
  const ended = await owned.commitTerminal({ status: 'failed', failure });
  deps.log({
    level: 'warn',
    runId: run.id,
    message: `Recovery ended the run ownership_lost (${outcome.reason})`,
  });
  return { kind: 'settled', run: ended, outcome };
}

function notTakenReason(error: unknown): RecoveryOutcome['reason'] | null {
  if (FencingError.isInstance(error) && error.reason === 'lease-held') return 'lease-held';
  if (InvalidTransitionError.isInstance(error)) {
    if (error.rule === 'run-ended') return 'run-ended';
    if (error.rule === 'run-not-leased') return 'not-leased';
  }
  return null;
}
