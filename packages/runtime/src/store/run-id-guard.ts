import type { AgentRuntimeStore } from './agent-runtime-store-api';
import { assertRunId } from './assert-run-id';

export { assertRunId } from './assert-run-id';

/**
 * The store with every run id checked before the driver is called: an invalid one rejects with
 * `InvalidRunIdError` (never a raw database error), for every driver alike.
 */
export function withRunIdValidation(store: AgentRuntimeStore): AgentRuntimeStore {
  const check =
    <A extends unknown[], R>(method: (runId: string, ...rest: A) => Promise<R>) =>
    async (runId: string, ...rest: A): Promise<R> => {
      assertRunId(runId);
      return method(runId, ...rest);
    };
  return {
    createRun: async (input) => {
      assertRunId(input.runId);
      return store.createRun(input);
    },
    acquireRun: check(store.acquireRun),
    recordRunOperation: check(store.recordRunOperation),
    saveAssistantCheckpoint: check(store.saveAssistantCheckpoint),
    appendAssistant: check(store.appendAssistant),
    releaseLease: check(store.releaseLease),
    handOffLease: check(store.handOffLease),
    takeOverRun: check(store.takeOverRun),
    // No run id: its answers come from the store.
    findExpiredRuns: (query) => store.findExpiredRuns(query),
    commitTerminal: check(store.commitTerminal),
    renewLease: check(store.renewLease),
    getRun: check(store.getRun),
    getSnapshot: check(store.getSnapshot),
    readEvents: check(store.readEvents),
    ...(store.now ? { now: store.now.bind(store) } : {}),
    ...(store.controlRequests ? { controlRequests: store.controlRequests } : {}),
    ...(store.runInputs ? { runInputs: store.runInputs } : {}),
  };
}
