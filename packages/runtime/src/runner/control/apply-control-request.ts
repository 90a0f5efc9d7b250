import { InvalidTransitionError } from '../../errors/invalid-transition-error';
import type { ControlRequest } from '../../store/control-requests';
import type { RunHandle } from '../run-handle';
import type { ResumeRunOptions, RuntimeLogEntry } from '../run-options';
import { NotPausedHereError } from './approval-answers';

export interface ControlTargets {
  /**
   * Ends the run `cancelled` from this process (aborting its execution here, if any); resolves
   * `true` once the run ended, `false` when it did not (the store failed, the run was handed off).
   */
  cancel(runId: string): Promise<boolean>;
  resume(options: ResumeRunOptions): RunHandle;
  log(entry: RuntimeLogEntry): void;
}

/** A claimed request handed to its execution; `effect` settles when its outcome is known. */
export interface AppliedControlRequest {
  /**
   * `true` when the request took effect (the run ended cancelled, the resumed execution ended
   * or paused again) or never can (the answer was refused): it is then marked applied. `false`
   * when that is not known — the store failed, the process handed the run off — so it stays
   * claimed-but-unapplied and is claimed again later (by this process's pump or recovery).
   */
  effect: Promise<boolean>;
}

/**
 * Applies one claimed control request to this process's execution of the run: a cancel
 * aborts it (or ends the paused run), approval answers resume the paused run. Resolves once
 * the request reached the execution (a resume's `created`); never rejects.
 */
export async function applyControlRequest(
  request: ControlRequest,
  targets: ControlTargets,
): Promise<AppliedControlRequest> {
  if (request.kind === 'cancel') return { effect: targets.cancel(request.runId) };
  const handle = targets.resume({ runId: request.runId, approvals: request.approvals ?? [] });
  const effect = handle.done.then(
    () => true,
    (error: unknown) => {
      if (isRefusal(error)) return true;
      if (error instanceof NotPausedHereError) {
        targets.log({
          level: 'warn',
          message: 'The run is not paused here (any more): the answer waits for recovery',
          runId: request.runId,
        });
        return false;
      }
      targets.log({
        level: 'error',
        message: 'The resumed execution failed',
        runId: request.runId,
        error,
      });
      return false;
    },
  );
  await handle.created.catch(() => {});
  return { effect };
}

/**
 * What `resumeRun` refuses an answer with — the answer is wrong for the run as it stands (it
 * ended, resumed, executes, waits for other ids): applying it again can never succeed. A run
 * this process does not keep paused (`NotPausedHereError`: e.g. its pause was finished by a
 * takeover, or lost to one) says nothing about the answer: its effect is not known, so the
 * request stays unapplied and whoever can apply it does (recovery adopts it).
 */
export function isRefusal(error: unknown): boolean {
  if (error instanceof NotPausedHereError) return false;
  return error instanceof TypeError || InvalidTransitionError.isInstance(error);
}
