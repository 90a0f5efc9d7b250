import type { RunDeltaEvent, RunEvent } from '@runlight/protocol';
import type { AgentRuntimeStore } from '@runlight/runtime';
import { assistantMessage, modelRequest } from '@runlight/test-utils';

export const delta = (runId: string, baseRevision: number, seq: number, text = `t${seq}`) =>
  ({
    type: 'run-delta',
    runId,
    baseRevision,
    seq,
    chunk: { type: 'text-delta', id: 'text-1', delta: text },
  }) as RunDeltaEvent;

/** What a listener saw, as short labels: `r3` a durable revision, `d2.1` delta base 2 seq 1. */
export const label = (event: RunEvent) =>
  event.type === 'run-delta' ? `d${event.baseRevision}.${event.seq}` : `r${event.revision}`;

/** Records what a source delivers for one run. */
export function follow(
  source: { subscribe(runId: string, listener: (event: RunEvent) => void): () => void },
  runId: string,
) {
  const seen: string[] = [];
  const events: RunEvent[] = [];
  const stop = source.subscribe(runId, (event) => {
    seen.push(label(event));
    events.push(event);
  });
  return { seen, events, stop };
}

let runs = 0;

/** A run on `store`; each step commits one more durable event and returns it. */
export async function startRun(store: AgentRuntimeStore) {
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
