import { type AgentRun, isTerminalPhase, isTerminalStatus } from '@runlight/protocol';
import type { RunEventBus } from '../../events/run-event-bus';
import type { AgentRuntimeStore } from '../../store/agent-runtime-store';
import { OwnedRun } from '../../store/owned-run';
import type { RunMutationQueue } from '../../store/run-mutation-queue';
import type { RunExecutionOptions, RuntimeLogEntry } from '../run-options';

export interface CancelDeps {
  publishing: AgentRuntimeStore;
  owner: string;
  leaseMs: number;
  queue: RunMutationQueue;
  bus: RunEventBus;
  log: (entry: RuntimeLogEntry) => void;
  /** The runtime's own bookkeeping (see `createAgentRuntime`). */
  controllers: Map<string, AbortController>;
  executions: Map<string, Promise<AgentRun>>;
  paused: Map<string, RunExecutionOptions>;
  cancelRequested: WeakSet<AbortController>;
}

/**
 * The runtime's cancels: of a run executing here (abort its controller), of one nobody executes
 * (acquire and end it), and a durable cancel request's (either, then whether the run ended).
 */
export function createCancels(deps: CancelDeps) {
  const { publishing, owner, leaseMs, queue, bus, log } = deps;
  const { controllers, executions, paused, cancelRequested } = deps;

  /** Cancels a run no execution of this process is running: acquire, end, commit. */
  async function cancelIdle(runId: string): Promise<void> {
    const run = await publishing.getRun(runId);
    if (isTerminalStatus(run.status)) return;
    const acquired = await publishing.acquireRun(runId, { owner, leaseMs });
    const owned = new OwnedRun(publishing, acquired, { queue });
    const current = acquired.lastOperation;
    if (current && !isTerminalPhase(current.phase)) {
      await owned.recordRunOperation({
        ...current,
        phase: 'cancelled',
        endedAt: new Date().toISOString(),
      });
    }
    await owned.commitTerminal({ status: 'cancelled' });
    paused.delete(runId);
    bus.endRun(runId);
  }

  /** Exported as `cancelRun`; also what a durable cancel request applies. */
  function cancelHere(runId: string): void {
    const controller = controllers.get(runId);
    if (controller) {
      cancelRequested.add(controller);
      controller.abort('cancelled');
      return;
    }
    // Not executing here (e.g. awaiting approval): end it if no live owner holds it. A resume
    // sent meanwhile waits for it (and then finds the run ended), instead of racing it for
    // the lease under the same owner name.
    if (executions.has(runId)) return;
    const cancelling = cancelIdle(runId)
      .catch((error) =>
        log({ level: 'warn', message: 'The run could not be cancelled', runId, error }),
      )
      .finally(() => {
        if (executions.get(runId) === cancelling) executions.delete(runId);
      }) as Promise<unknown> as Promise<AgentRun>;
    executions.set(runId, cancelling);
  }

  /** A durable cancel: applied here, `true` once the run ended (see `AppliedControlRequest`). */
  async function cancelAndSettle(runId: string): Promise<boolean> {
    cancelHere(runId);
    await executions.get(runId)?.catch(() => {});
    try {
      return isTerminalStatus((await publishing.getRun(runId)).status);
    } catch {
      return false;
    }
  }

  return { cancelIdle, cancelHere, cancelAndSettle };
}
