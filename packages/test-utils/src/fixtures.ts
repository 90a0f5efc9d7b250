import type { RunOperation, UIMessage } from '@runlight/protocol';

/** A fixed wall clock that tests move by hand. */
export function manualClock(start = '2026-12-02T12:00:00.000Z') {
  let current = Date.parse(start);
  return {
    now: () => new Date(current),
    advance(ms: number) {
      current += ms;
    },
    iso: () => new Date(current).toISOString(),
    /** The ISO time `ms` after now. */
    plus: (ms: number) => new Date(current + ms).toISOString(),
  };
}

export const T0 = '2026-12-02T12:00:00.000Z';
export const T1 = '2026-12-02T12:00:01.000Z';
export const T2 = '2026-12-02T12:00:02.000Z';

/** A model-request operation of `step` in `phase`, with the timestamps its phase requires. */
export function modelRequest(
  step: number,
  phase: RunOperation['phase'] = 'started',
  id = `model-request:step-${step}`,
): RunOperation {
  const operation: RunOperation = { id, kind: 'model-request', phase, step, startedAt: T0 };
  if (phase === 'first-output') operation.firstOutputAt = T1;
  if (phase === 'completed' || phase === 'failed' || phase === 'cancelled') {
    operation.endedAt = T2;
  }
  return operation;
}

/** A compaction operation of `step` in `phase`. */
export function compaction(
  step: number,
  phase: 'started' | 'completed' | 'failed' | 'cancelled' = 'started',
  id = `compaction:step-${step}`,
): RunOperation {
  const operation: RunOperation = { id, kind: 'compaction', phase, step, startedAt: T0 };
  if (phase !== 'started') operation.endedAt = T2;
  if (phase === 'completed') operation.outcome = 'compacted';
  return operation;
}

/** An assistant message with one text part. */
export function assistantMessage(text: string, id = 'message-1'): UIMessage {
  return { id, role: 'assistant', parts: [{ type: 'text', text, state: 'done' }] };
}
