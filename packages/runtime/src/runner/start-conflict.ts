import type { AgentRun } from '@runlight/protocol';
import { FencingError } from '../errors/fencing-error';
import { InvalidTransitionError } from '../errors/invalid-transition-error';

/**
 * `startRun` of a run that existed before the call is admitted only once this runtime
 * acquired it: a queued run, a run whose owner's lease expired (a takeover) or one this owner
 * name holds. One that ended rejects `run-ended`; one another owner's live lease holds rejects
 * `run-exists` (the HTTP start route answers `409 run_ended` / `409 run_executing`) — so a
 * start route never answers `201` for a run it did not start.
 *
 * @example
 * const acquired = await acquireExisting(() => publishing.acquireRun(runId, { owner, leaseMs }), runId);
 */
export async function acquireExisting(
  acquire: () => Promise<AgentRun>,
  runId: string,
): Promise<AgentRun> {
  try {
    return await acquire();
  } catch (error) {
    if (FencingError.isInstance(error) && error.reason === 'lease-held') {
      throw new InvalidTransitionError(runId, 'run-exists', 'a run with this id is running');
    }
    throw error;
  }
}
