import type { AgentRun } from '@runlight/protocol';

/*
 * A run's handle in a leaf of its own: the control steps (adopt, apply, resume) return handles
 * and the runtime's types name their outcomes, so with the handle beside those types the two
 * imported each other.
 */

/** A handle on a run started or resumed in this process. */
export interface RunHandle {
  /**
   * The run when its local execution ended: completed, failed (a result, never a rejection),
   * cancelled, still `running` while it awaits approvals, or as the new owner left it after a
   * lost lease. Rejects only when the run could not be created or acquired.
   */
  done: Promise<AgentRun>;
  /**
   * The run once it exists in the store and this execution was admitted (`startRun`: created
   * or found; `resumeRun`: the approvals matched the paused message). Await it before handing
   * the run id to a client: a store that answers on a later tick would otherwise let the
   * client's first snapshot request arrive before the run exists. Rejects when the run could
   * not be created or the execution was refused (e.g. already executing, nothing to resume).
   *
   * @example
   * const handle = runtime.startRun({ runId, model, messages });
   * await handle.created;
   * return Response.json({ runId }, { status: 201 });
   */
  created: Promise<AgentRun>;
}

/** A handle whose execution was refused before it began. */
export function refused(error: unknown): RunHandle {
  const done = Promise.reject(error);
  const created = Promise.reject(error);
  // Callers may await only one of the two; the other must not be an unhandled rejection.
  created.catch(() => {});
  done.catch(() => {});
  return { done, created };
}
