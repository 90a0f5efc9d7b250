import type { UIMessage, UIMessageChunk } from '@runlight/protocol';
import { applyStructuralChunk } from './apply-structural-chunk';
import { parsePartialJson } from './parse-partial-json';

/*
 * The client's one chunk application: a durable `assistant-append` (`applyChunks`, from
 * `applyEvent`) and the live overlay (`selectMessage`) both apply chunks here, so an append
 * and the deltas it holds show the same message. It lives with merging; selection imports it
 * (never the other way: issue 38, no import loops between folders).
 */

type Part = UIMessage['parts'][number];
type AnyPart = Part & Record<string, unknown>;

/** The incremental materialisation of one overlay (one shared `chunks` array). */
export interface Work {
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

/** A fresh materialisation continuing `checkpoint` (or an empty message named `emptyId`). */
export function workOn(
  checkpoint: UIMessage | undefined,
  emptyId: string,
  baseRevision: number,
): Work {
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

/** Applies one chunk to `work`, as the AI SDK's `readUIMessageStream` applies it. */
export function applyChunk(work: Work, chunk: UIMessageChunk): void {
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
