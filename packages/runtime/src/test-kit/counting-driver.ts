import {
  type AgentRuntimeDriver,
  type AgentRuntimeStore,
  createAgentRuntime,
  createAgentRuntimeStore,
} from '../index';
import { wholeStoredEvent } from '../store/log/packed-event';
import { scriptedModel } from '../testing/index';

/** What a counting driver saw: every written compare-and-set, as JSON bytes. */
export interface WriteCounts {
  writes: number;
  /** Snapshot records plus events, as JSON. */
  bytes: number;
  /** The snapshot records alone (a write without one passes `null`: 0 bytes). */
  recordBytes: number;
  /** Writes that passed a snapshot record. */
  snapshots: number;
  /** The largest record written. */
  maxRecordBytes: number;
  /** The largest record written by an operation mutation (`run-operation`; 0: none passed). */
  maxOperationRecordBytes: number;
  /** The assistant events (appends and consolidations), whole. */
  assistantBytes: number;
}

/**
 * A driver that counts the JSON bytes of every snapshot record and event passed to `inner`.
 */
export function countingDriver(inner: AgentRuntimeDriver): {
  driver: AgentRuntimeDriver;
  counts: WriteCounts;
} {
  const counts: WriteCounts = {
    writes: 0,
    bytes: 0,
    recordBytes: 0,
    snapshots: 0,
    maxRecordBytes: 0,
    maxOperationRecordBytes: 0,
    assistantBytes: 0,
  };
  const driver: AgentRuntimeDriver = {
    load: (runId) => inner.load(runId),
    readEvents: (runId, after) => inner.readEvents(runId, after),
    findExpiredRuns: (options) => inner.findExpiredRuns(options),
    async compareAndSet(runId, expected, next, events, head) {
      const written = await inner.compareAndSet(runId, expected, next, events, head);
      if (!written) return false;
      const record = next === null ? 0 : JSON.stringify(next).length;
      counts.writes++;
      if (next !== null) counts.snapshots++;
      counts.recordBytes += record;
      counts.maxRecordBytes = Math.max(counts.maxRecordBytes, record);
      counts.bytes += record;
      for (const event of events) {
        const bytes = JSON.stringify(event).length;
        counts.bytes += bytes;
        const { type } = wholeStoredEvent(event);
        if (type === 'assistant-append' || type === 'assistant-checkpoint') {
          counts.assistantBytes += bytes;
        }
        if (type === 'run-operation') {
          counts.maxOperationRecordBytes = Math.max(counts.maxOperationRecordBytes, record);
        }
      }
      return true;
    },
  };
  return { driver, counts };
}

/** `count` word tokens (`word<i> `, ~8 bytes each), the scripted model's unit. */
export const wordTokens = (count: number, from = 0) =>
  Array.from({ length: count }, (_, i) => `word${from + i} `);

/**
 * Runs one answer of `tokens` word tokens (a tenth of them reasoning) through a runtime at the
 * default cadence over `driver`, counting every byte passed to it.
 */
export async function measureLongAnswer(
  driver: AgentRuntimeDriver,
  tokens: number,
  runId = `long-${tokens}`,
): Promise<{ counts: WriteCounts; finalBytes: number; store: AgentRuntimeStore }> {
  const counting = countingDriver(driver);
  const store = createAgentRuntimeStore(counting.driver);
  const runtime = createAgentRuntime({ store, owner: 'worker-a', onLog: () => {} });
  const reasoning = Math.floor(tokens / 10);
  const run = await runtime.startRun({
    runId,
    model: scriptedModel([
      { reasoning: wordTokens(reasoning), text: wordTokens(tokens - reasoning, reasoning) },
    ]),
    messages: [{ role: 'user', content: 'Go' }],
  }).done;
  if (run.status !== 'completed') throw new Error(`run ${runId} ended ${run.status}`);
  const message = (await store.getSnapshot(runId)).assistant?.message;
  return { counts: counting.counts, finalBytes: JSON.stringify(message).length, store };
}
