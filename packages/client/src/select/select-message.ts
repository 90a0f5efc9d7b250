import type { UIMessage, UIMessageChunk } from '@runlight/protocol';
import { applyStructuralChunk } from '../merge/apply-structural-chunk';
import { parsePartialJson } from '../merge/parse-partial-json';
import type { RunState } from '../merge/run-state';

type Part = UIMessage['parts'][number];
type AnyPart = Part & Record<string, unknown>;

/** The incremental materialisation of one overlay (one shared `chunks` array). */
interface Work {
  baseRevision: number;
  /** Whether a checkpoint names the message (then `start` cannot rename it). */
  fromCheckpoint: boolean;
  id: string;
  metadata: unknown;
  parts: Part[];
  textById: Map<string, number>;
  reasoningById: Map<string, number>;
  count: number;
  message: UIMessage;
}

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

function workOn(checkpoint: UIMessage | undefined, emptyId: string, baseRevision: number): Work {
  const empty: UIMessage = { id: emptyId, role: 'assistant', parts: [] };
  return {
    baseRevision,
    fromCheckpoint: checkpoint !== undefined,
    id: checkpoint?.id ?? empty.id,
    metadata: checkpoint?.metadata,
    parts: checkpoint ? checkpoint.parts.slice() : [],
    textById: new Map(),
    reasoningById: new Map(),
    count: 0,
    message: checkpoint ?? empty,
  };
}

/**
 * `message` with `chunks` applied in order (an `assistant-append`), as a new message; parts it
 * does not change are shared, none is mutated. The one chunk application of the client, shared
 * with the live overlay, so an append and the deltas it holds show the same message.
 *
 * @example
 * applyChunks(message, [{ type: 'text-delta', id: 't', delta: ' more' }]);
 */
export function applyChunks(message: UIMessage, chunks: readonly UIMessageChunk[]): UIMessage {
  const work = workOn(message, message.id, 0);
  for (const chunk of chunks) applyChunk(work, chunk);
  const next: UIMessage = { id: work.id, role: 'assistant', parts: work.parts };
  if (work.metadata !== undefined) next.metadata = work.metadata;
  return next;
}

/** The last part of `type` still streaming: where a part begun before the checkpoint continues. */
function lastStreaming(parts: Part[], type: 'text' | 'reasoning'): number | undefined {
  for (let index = parts.length - 1; index >= 0; index--) {
    const part = parts[index]!;
    if (part.type === type) return part.state === 'streaming' ? index : undefined;
  }
  return undefined;
}

function findTool(parts: Part[], toolCallId: string): number | undefined {
  for (let index = parts.length - 1; index >= 0; index--) {
    if ((parts[index] as AnyPart).toolCallId === toolCallId) return index;
  }
  return undefined;
}

function streamed(work: Work, type: 'text' | 'reasoning', id: string): number {
  const byId = type === 'text' ? work.textById : work.reasoningById;
  let index = byId.get(id) ?? lastStreaming(work.parts, type);
  if (index === undefined) {
    // A delta without its start (it came before the checkpoint we hold): never drop text.
    index = work.parts.push(newStreamingPart(type, id)) - 1;
  }
  byId.set(id, index);
  return index;
}

function newStreamingPart(type: 'text' | 'reasoning', id: string): Part {
  return type === 'text'
    ? { type: 'text', text: '', state: 'streaming' }
    : { type: 'reasoning', id, text: '', state: 'streaming' };
}

type TextLikePart = Extract<Part, { type: 'text' | 'reasoning' }>;

/**
 * A streaming part with `delta` appended, as a new object. The common shapes are built field by
 * field (V8 allocates those inline; a spread per delta was the cost of this selector).
 */
function withText(part: TextLikePart, delta: string): Part {
  const text = part.text + delta;
  const keys = Object.keys(part).length;
  if (part.type === 'text' && keys === 3 && part.state !== undefined) {
    return { type: 'text', text, state: part.state };
  }
  if (
    part.type === 'reasoning' &&
    keys === 4 &&
    part.id !== undefined &&
    part.state !== undefined
  ) {
    return { type: 'reasoning', id: part.id, text, state: part.state };
  }
  return { ...part, text };
}

function applyChunk(work: Work, chunk: UIMessageChunk): void {
  const parts = work.parts;
  switch (chunk.type) {
    case 'start':
      if (chunk.messageId && !work.fromCheckpoint) work.id = chunk.messageId;
      applyStructuralChunk(work, chunk);
      return;
    case 'start-step':
      parts.push({ type: 'step-start' });
      return;
    case 'text-start':
    case 'reasoning-start': {
      const type = chunk.type === 'text-start' ? 'text' : 'reasoning';
      const byId = type === 'text' ? work.textById : work.reasoningById;
      byId.set(chunk.id, parts.push(newStreamingPart(type, chunk.id)) - 1);
      return;
    }
    case 'text-delta':
    case 'reasoning-delta': {
      const index = streamed(work, chunk.type === 'text-delta' ? 'text' : 'reasoning', chunk.id);
      parts[index] = withText(parts[index] as TextLikePart, chunk.delta);
      return;
    }
    case 'text-end':
    case 'reasoning-end': {
      const index = streamed(work, chunk.type === 'text-end' ? 'text' : 'reasoning', chunk.id);
      parts[index] = { ...parts[index]!, state: 'done' } as Part;
      (chunk.type === 'text-end' ? work.textById : work.reasoningById).delete(chunk.id);
      return;
    }
    case 'tool-input-start': {
      if (findTool(parts, chunk.toolCallId) !== undefined) return;
      const identity = chunk.dynamic
        ? { type: 'dynamic-tool', toolName: chunk.toolName }
        : { type: `tool-${chunk.toolName}` };
      parts.push({
        ...identity,
        toolCallId: chunk.toolCallId,
        state: 'input-streaming',
        input: undefined,
        ...(chunk.title === undefined ? {} : { title: chunk.title }),
        ...(chunk.providerExecuted === undefined
          ? {}
          : { providerExecuted: chunk.providerExecuted }),
      } as Part);
      return;
    }
    case 'tool-input-delta': {
      const index = findTool(parts, chunk.toolCallId);
      if (index === undefined) return;
      const part = parts[index] as AnyPart;
      if (part.state !== 'input-streaming') return;
      const rawInput = `${typeof part.rawInput === 'string' ? part.rawInput : ''}${chunk.inputTextDelta}`;
      const input = part.inputEncoding === 'text' ? rawInput : parsePartialJson(rawInput);
      parts[index] = { ...part, rawInput, input } as Part;
      return;
    }
    case 'reset-step':
      work.textById.clear();
      work.reasoningById.clear();
      applyStructuralChunk(work, chunk);
      return;
    default:
      applyStructuralChunk(work, chunk);
      return;
  }
}
