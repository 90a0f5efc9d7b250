import type { RunEventBus } from '../../events/run-event-bus';
import type { AgentRuntimeStore } from '../../store/agent-runtime-store';
import { statusEvent } from '../../store/reducer';

/**
 * A store whose mutations publish their durable event once they committed. `OwnedRun` calls it
 * inside its per-run queue turn, so events are published in revision order, before the next
 * mutation of the run starts. The event is rebuilt from the committed run exactly as the
 * reference reducer builds it (no extra read on the hot path); a terminal commit the store
 * recognised as a duplicate appended no event and publishes none.
 *
 * @example
 * const owned = new OwnedRun(publishingStore(store, hub), acquired, { queue });
 */
export function publishingStore(store: AgentRuntimeStore, bus: RunEventBus): AgentRuntimeStore {
  // Explicit delegation, not a spread: a class-based store keeps its methods on the prototype.
  return {
    getRun: (runId) => store.getRun(runId),
    getSnapshot: (runId) => store.getSnapshot(runId),
    readEvents: (runId, options) => store.readEvents(runId, options),
    findExpiredRuns: (query) => store.findExpiredRuns(query),
    async createRun(input) {
      const run = await store.createRun(input);
      bus.publish(statusEvent(run, 'created'));
      return run;
    },
    async acquireRun(runId, input) {
      const run = await store.acquireRun(runId, input);
      bus.publish(statusEvent(run, 'acquired'));
      return run;
    },
    async takeOverRun(runId, input) {
      const taken = await store.takeOverRun(runId, input);
      bus.publish(statusEvent(taken.run, 'acquired'));
      return taken;
    },
    async releaseLease(runId, guard) {
      const run = await store.releaseLease(runId, guard);
      bus.publish(statusEvent(run, 'lease-released'));
      return run;
    },
    async handOffLease(runId, guard) {
      const run = await store.handOffLease(runId, guard);
      bus.publish(statusEvent(run, 'lease-handed-off'));
      return run;
    },
    async recordRunOperation(runId, guard, operation) {
      const run = await store.recordRunOperation(runId, guard, operation);
      if (run.lastOperation) {
        bus.publish({
          type: 'run-operation',
          runId,
          revision: run.revision,
          at: run.updatedAt,
          leaseExpiresAt: run.leaseExpiresAt,
          operation: run.lastOperation,
        });
      }
      return run;
    },
    async saveAssistantCheckpoint(runId, guard, message) {
      const run = await store.saveAssistantCheckpoint(runId, guard, message);
      bus.publish({
        type: 'assistant-checkpoint',
        runId,
        revision: run.revision,
        at: run.updatedAt,
        leaseExpiresAt: run.leaseExpiresAt,
        checkpoint: { message, revision: run.revision },
      });
      return run;
    },
    async appendAssistant(runId, guard, append) {
      const run = await store.appendAssistant(runId, guard, append);
      bus.publish({
        type: 'assistant-append',
        runId,
        revision: run.revision,
        at: run.updatedAt,
        leaseExpiresAt: run.leaseExpiresAt,
        messageId: append.messageId,
        baseRevision: append.baseRevision,
        chunks: [...append.chunks],
      });
      return run;
    },
    async renewLease(runId, guard) {
      const run = await store.renewLease(runId, guard);
      bus.publish(statusEvent(run, 'lease-renewed'));
      return run;
    },
    async commitTerminal(runId, guard, terminal) {
      const run = await store.commitTerminal(runId, guard, terminal);
      if (run.revision === guard.expectedRevision + 1)
        bus.publish(statusEvent(run, terminal.status));
      return run;
    },
  };
}
