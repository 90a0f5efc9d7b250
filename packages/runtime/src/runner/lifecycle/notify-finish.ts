import type { AgentRun } from '@runlight/protocol';
import type { AgentRuntimeStore } from '../../store/agent-runtime-store';
import type { RunExecutionOptions, RuntimeLogEntry } from '../run-options';

/**
 * Calls the run's `onFinish` with the run and its final checkpointed assistant message, once
 * its execution ended. A failing callback (or snapshot read) is logged and changes nothing.
 *
 * @example
 * return notifyFinish(execution, run, { store, log });
 */
export async function notifyFinish(
  execution: Pick<RunExecutionOptions, 'onFinish'>,
  run: AgentRun,
  deps: { store: Pick<AgentRuntimeStore, 'getSnapshot'>; log: (entry: RuntimeLogEntry) => void },
): Promise<AgentRun> {
  if (!execution.onFinish) return run;
  try {
    const snapshot = await deps.store.getSnapshot(run.id);
    await execution.onFinish({ run, message: snapshot.assistant?.message ?? null });
  } catch (error) {
    deps.log({
      level: 'warn',
      message: 'The run’s onFinish callback failed',
      runId: run.id,
      error,
    });
  }
  return run;
}
