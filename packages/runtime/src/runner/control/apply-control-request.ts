import { InvalidTransitionError } from '../../errors/invalid-transition-error';
import type { ControlRequest } from '../../store/control-requests';
import type { RunHandle } from '../agent-runtime-types';
import type { ResumeRunOptions, RuntimeLogEntry } from '../run-options';

export interface ControlTargets {
  /** Ends the run `cancelled` from this process (aborting its execution here, if any). */
  cancel(runId: string): void;
  resume(options: ResumeRunOptions): RunHandle;
  log(entry: RuntimeLogEntry): void;
}

/**
 * Applies one claimed control request to this process's execution of the run: a cancel
 * aborts it (or ends the paused run), approval answers resume the paused run. A refused answer
 * (the run ended or resumed meanwhile) rejects; the resumed execution's own end is the run's.
 */
export async function applyControlRequest(
  request: ControlRequest,
  targets: ControlTargets,
): Promise<void> {
  if (request.kind === 'cancel') {
    targets.cancel(request.runId);
    return;
  }
  const handle = targets.resume({ runId: request.runId, approvals: request.approvals ?? [] });
  handle.done.catch((error: unknown) => {
    // A refusal is what `created` rejects with; a run's own failure is recorded in the store.
    if (error instanceof TypeError || InvalidTransitionError.isInstance(error)) return;
    targets.log({
      level: 'error',
      message: 'The resumed execution failed',
      runId: request.runId,
      error,
    });
  });
  await handle.created;
}
