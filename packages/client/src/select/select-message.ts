import type { UIMessage, UIMessageChunk } from '@runlight/protocol';
import { applyChunk, type Work, workOn } from '../merge/apply-chunks';
import type { RunState } from '../merge/run-state';

const cache = new WeakMap<readonly UIMessageChunk[], Work>();

/**
 * The assistant message to show: the durable checkpoint with the live overlay applied.
 * Memoised: the same state (or one whose checkpoint and overlay did not change) returns the
 * same object, and a new delta costs O(parts), never a copy of the text. Parts already
 * returned are never mutated — a changed part is a new object.
 *
 * Every chunk is applied as the AI SDK's `readUIMessageStream` applies it: text and reasoning
 * start/delta/end, tool-input start/delta (partial input parsed from the raw text), step starts,
 * the message id of `start`, and the structural chunks (tool calls and results, approvals,
 * files, sources, data parts, metadata) — the same application `applyChunks` uses for
 * durable appends.
 *
 * @example
 * const message = selectMessage(store.getState()); // UIMessage | null
 */
export function selectMessage(state: RunState): UIMessage | null {
  const checkpoint = state.assistant?.message ?? null;
  const live = state.live;
  if (live === null || live.seq === 0) return checkpoint;
  let work = cache.get(live.chunks);
  if (work === undefined || work.baseRevision !== live.baseRevision) {
    work = startWork(state, live.baseRevision);
    cache.set(live.chunks, work);
  } else if (work.count > live.seq) {
    // An older state of the same stream: materialise it on the side, keep the tip cached.
    work = startWork(state, live.baseRevision);
  }
  if (work.count === live.seq) return work.message;
  for (let index = work.count; index < live.seq; index++) applyChunk(work, live.chunks[index]!);
  work.count = live.seq;
  // `UIMessage` has exactly id, role, metadata and parts.
  work.message = { id: work.id, role: 'assistant', parts: work.parts.slice() };
  if (work.metadata !== undefined) work.message.metadata = work.metadata;
  return work.message;
}

function startWork(state: RunState, baseRevision: number): Work {
  return workOn(state.assistant?.message, `${state.runId}:assistant`, baseRevision);
}
