import type { AgentRun, DurableRunEvent } from '@runlight/protocol';
import type { RunEventBus } from '../../events/run-event-bus';
import type { AgentRuntimeStore } from '../../store/agent-runtime-store';
import { statusEvent } from '../../store/log/reducer';
import type { ObservedCause, RunTelemetry } from '../../telemetry/run-telemetry';

/**
 * A store whose mutations publish their durable event once they committed. `OwnedRun` calls it
 * inside its per-run queue turn, so events are published in revision order, before the next
 * mutation of the run starts. The event is rebuilt from the committed run exactly as the
 * reference reducer builds it (no extra read on the hot path); a terminal commit the store
 * recognised as a duplicate appended no event and publishes none. The telemetry, when the app
 * configured one, observes the same event right after it is published: spans and metrics are a
 * projection of the durable facts, not a second lifecycle.
 *
 * @example
 * const owned = new OwnedRun(publishingStore(store, hub), acquired, { queue });
 */
export function publishingStore(
  store: AgentRuntimeStore,
  bus: RunEventBus,
  telemetry?: Pick<RunTelemetry, 'observe'>,
): AgentRuntimeStore {
  const publish = (event: DurableRunEvent, run: AgentRun, cause?: ObservedCause) => {
    bus.publish(event);
    telemetry?.observe(event, run, cause);
  };
  // Explicit delegation, not a spread: a class-based store keeps its methods on the prototype.
  return {
    getRun: (runId) => store.getRun(runId),
    getSnapshot: (runId) => store.getSnapshot(runId),
    readEvents: (runId, options) => store.readEvents(runId, options),
    findExpiredRuns: (query) => store.findExpiredRuns(query),
    ...(store.now ? { now: store.now.bind(store) } : {}),
    async createRun(input) {
      const run = await store.createRun(input);
      publish(statusEvent(run, 'created'), run);
      return run;
    },
    async acquireRun(runId, input) {
      const run = await store.acquireRun(runId, input);
      publish(statusEvent(run, 'acquired'), run);
      return run;
    },
    async takeOverRun(runId, input) {
      // With telemetry on, the silent owner's lease expiry (read first: a takeover is rare) is
      // what the recovery latency counts from.
      const before = telemetry ? await store.getRun(runId).catch(() => null) : null;
      const taken = await store.takeOverRun(runId, input);
      const leaseExpiredAt = before?.leaseExpiresAt ?? undefined;
      publish(statusEvent(taken.run, 'acquired'), taken.run, {
        takeover: { takeovers: taken.takeovers, ...(leaseExpiredAt ? { leaseExpiredAt } : {}) },
      });
      return taken;
    },
    async releaseLease(runId, guard) {
      const run = await store.releaseLease(runId, guard);
      publish(statusEvent(run, 'lease-released'), run);
      return run;
    },
    async handOffLease(runId, guard) {
      const run = await store.handOffLease(runId, guard);
      publish(statusEvent(run, 'lease-handed-off'), run);
      return run;
    },
    async recordRunOperation(runId, guard, operation) {
      const run = await store.recordRunOperation(runId, guard, operation);
      if (run.lastOperation) {
        publish(
          {
            type: 'run-operation',
            runId,
            revision: run.revision,
            at: run.updatedAt,
            leaseExpiresAt: run.leaseExpiresAt,
            operation: run.lastOperation,
          },
          run,
        );
      }
      return run;
    },
    async saveAssistantCheckpoint(runId, guard, message) {
      const run = await store.saveAssistantCheckpoint(runId, guard, message);
      publish(
        {
          type: 'assistant-checkpoint',
          runId,
          revision: run.revision,
          at: run.updatedAt,
          leaseExpiresAt: run.leaseExpiresAt,
          checkpoint: { message, revision: run.revision },
        },
        run,
      );
      return run;
    },
    async appendAssistant(runId, guard, append) {
      const run = await store.appendAssistant(runId, guard, append);
      publish(
        {
          type: 'assistant-append',
          runId,
          revision: run.revision,
          at: run.updatedAt,
          leaseExpiresAt: run.leaseExpiresAt,
          messageId: append.messageId,
          baseRevision: append.baseRevision,
          chunks: [...append.chunks],
        },
        run,
      );
      return run;
    },
    async renewLease(runId, guard) {
      const run = await store.renewLease(runId, guard);
      publish(statusEvent(run, 'lease-renewed'), run);
      return run;
    },
    async commitTerminal(runId, guard, terminal) {
      const run = await store.commitTerminal(runId, guard, terminal);
      if (run.revision === guard.expectedRevision + 1)
        publish(statusEvent(run, terminal.status), run);
      return run;
    },
  };
}

/**
 * Publishes an event read back from the log (a write that landed unseen); the telemetry sees it
 * with the run as it stands now (read only when telemetry is on and the caller knows none).
 */
export function republisher(
  bus: RunEventBus,
  store: AgentRuntimeStore,
  telemetry: Pick<RunTelemetry, 'observe'> | undefined,
) {
  return async (event: DurableRunEvent, known: AgentRun | null): Promise<void> => {
    bus.publish(event);
    if (!telemetry) return;
    const run = known ?? (await store.getRun(event.runId).catch(() => null));
    if (run) telemetry.observe(event, run);
  };
}
