import type { RunDeltaEvent, RunEvent } from '@runlight/protocol';
import type { AgentRuntimeStore } from '../index';
import { assistantMessage, modelRequest } from './kit-fixtures';

/** A text delta of `runId` on `baseRevision`, its text `t<seq>` unless given. */
export const busDelta = (
  runId: string,
  baseRevision: number,
  seq: number,
  text = `t${seq}`,
): RunDeltaEvent => ({
  type: 'run-delta',
  runId,
  baseRevision,
  seq,
  chunk: { type: 'text-delta', id: 'text-1', delta: text },
});

/** What a listener saw, as short labels: `r3` a durable revision, `d2.1` delta base 2 seq 1. */
export const busLabel = (event: RunEvent) =>
  event.type === 'run-delta' ? `d${event.baseRevision}.${event.seq}` : `r${event.revision}`;

/** Records what a source delivers for one run: labels, events, and the unsubscribe. */
export function followBus(
  source: { subscribe(runId: string, listener: (event: RunEvent) => void): () => void },
  runId: string,
) {
  const seen: string[] = [];
  const events: RunEvent[] = [];
  const stop = source.subscribe(runId, (event) => {
    seen.push(busLabel(event));
    events.push(event);
  });
  return { seen, events, stop };
}

let runs = 0;

/**
 * A run on `store` (created, acquired: revisions 1 and 2); each step commits one more durable
 * event and returns it, for a test to publish — or not, as an announcement lost.
 */
export async function startBusRun(store: AgentRuntimeStore) {
  const runId = `bus-run-${process.pid}-${++runs}`;
  await store.createRun({ runId });
  let run = await store.acquireRun(runId, { owner: 'a', leaseMs: 60_000 });
  let step = 0;
  let phase: 'started' | 'completed' = 'completed';
  const guard = () => ({
    owner: 'a',
    fencingToken: run.fencingToken,
    expectedRevision: run.revision,
  });
  const committed = async () =>
    (await store.readEvents(runId, { afterRevision: run.revision - 1 }))[0]!;
  return {
    runId,
    /** A model request started, or the one in flight completed: one event. */
    async operation() {
      phase = phase === 'started' ? 'completed' : 'started';
      if (phase === 'started') step++;
      run = await store.recordRunOperation(runId, guard(), modelRequest(step, phase));
      return committed();
    },
    async checkpoint(text: string) {
      run = await store.saveAssistantCheckpoint(runId, guard(), assistantMessage(text));
      return committed();
    },
    /** Completes the operation in flight, if any, and the run: one or two events. */
    async end() {
      const events = phase === 'started' ? [await this.operation()] : [];
      run = await store.commitTerminal(runId, guard(), { status: 'completed' });
      return [...events, await committed()];
    },
  };
}
