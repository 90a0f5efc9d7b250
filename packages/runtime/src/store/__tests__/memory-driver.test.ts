import { describeDriverConformance } from '../../test-kit/index';
import type { AgentRuntimeDriver } from '../driver/driver';
import { corruptMemoryEvent, createMemoryDriver } from '../driver/memory-driver';

/** The memory driver, with a back door that stores a raw (possibly corrupt) record. */
function corruptibleMemoryDriver() {
  const inner = createMemoryDriver();
  const raw = new Map<string, unknown>();
  const driver: AgentRuntimeDriver = {
    load: async (runId) => (raw.has(runId) ? structuredClone(raw.get(runId)) : inner.load(runId)),
    compareAndSet: (runId, expected, next, events, head) =>
      raw.has(runId)
        ? Promise.resolve(false)
        : inner.compareAndSet(runId, expected, next, events, head),
    readEvents: (runId, after) => inner.readEvents(runId, after),
    findExpiredRuns: (query) => inner.findExpiredRuns(query),
    appendControlRequest: inner.appendControlRequest,
    readControlRequests: inner.readControlRequests,
    markControlRequestDone: inner.markControlRequestDone,
    readStaleControlRequests: inner.readStaleControlRequests,
    reclaimControlRequest: inner.reclaimControlRequest,
    markControlRequestApplied: inner.markControlRequestApplied,
    deleteEndedControlRequests: inner.deleteEndedControlRequests,
    saveRunInput: inner.saveRunInput,
    readRunInput: inner.readRunInput,
    listChatRuns: inner.listChatRuns,
  };
  return {
    driver,
    corrupt: async (runId: string, record: unknown) => {
      raw.set(runId, record);
    },
    corruptEvent: async (runId: string, revision: number, event: unknown) => {
      corruptMemoryEvent(inner, runId, revision, event);
    },
  };
}

describeDriverConformance('memory', async () => corruptibleMemoryDriver());
