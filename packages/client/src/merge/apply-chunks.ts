import type { UIMessage, UIMessageChunk } from '@runlight/protocol';
import { applyStructuralChunk } from './apply-structural-chunk';

/*
 * The client's one chunk application: a durable `assistant-append` (`applyChunks`, from
 * `applyEvent`) and the live overlay (`selectMessage`) both apply chunks here, so an append
 * and the deltas it holds show the same message. It lives with merging; selection imports it
 * (never the other way: issue 38, no import loops between folders).
 */

type Part = UIMessage['parts'][number];

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

type TextPart = Extract<Part, { type: 'text' }>;
type ReasoningPart = Extract<Part, { type: 'reasoning' }>;
type TextLikePart = TextPart | ReasoningPart;
type ProviderMetadata = TextPart['providerMetadata'];

const isTextLike = (part: Part | undefined): part is TextLikePart =>
  part?.type === 'text' || part?.type === 'reasoning';

/**
 * The part a text or reasoning chunk continues: the one its start opened, else the last one of
 * its type still streaming (begun before the checkpoint this fold continues — where the SDK,
 * whose state does not survive a checkpoint, would reject the chunk), else a new one: text is
 * never dropped. Returns its index and the part.
 */
function streamed(work: Work, type: 'text' | 'reasoning', id: string): [number, TextLikePart] {
  const byId = type === 'text' ? work.textById : work.reasoningById;
  let index = byId.get(id) ?? lastStreaming(work.parts, type);
  let part = index === undefined ? undefined : work.parts[index];
  if (index === undefined || !isTextLike(part)) {
    part = newStreamingPart(type, id, undefined);
    index = work.parts.push(part) - 1;
  }
  byId.set(id, index);
  return [index, part];
}

function newStreamingPart(
  type: 'text' | 'reasoning',
  id: string,
  providerMetadata: ProviderMetadata,
): TextLikePart {
  const metadata = providerMetadata === undefined ? {} : { providerMetadata };
  return type === 'text'
    ? { type: 'text', text: '', state: 'streaming', ...metadata }
    : { type: 'reasoning', id, text: '', state: 'streaming', ...metadata };
}

/**
 * A streaming part with `delta` appended, as a new object. The common shapes are built field by
 * field (V8 allocates those inline; a spread per delta was the cost of this selector). A chunk's
 * `providerMetadata` replaces the part's, as the SDK does.
 */
function withText(part: TextLikePart, delta: string, providerMetadata: ProviderMetadata): Part {
  const text = part.text + delta;
  if (providerMetadata !== undefined) return { ...part, text, providerMetadata };
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

/** A text or reasoning part done: `citations` (text) and `providerMetadata` as the SDK sets them. */
function ended(
  part: TextLikePart,
  chunk: Extract<UIMessageChunk, { type: 'text-end' | 'reasoning-end' }>,
): Part {
  const providerMetadata = chunk.providerMetadata ?? part.providerMetadata;
  const metadata = providerMetadata === undefined ? {} : { providerMetadata };
  if (part.type === 'reasoning') return { ...part, state: 'done', ...metadata };
  const citations =
    chunk.type === 'text-end' && chunk.citations != null ? { citations: chunk.citations } : {};
  return { ...part, state: 'done', ...citations, ...metadata };
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
      work.textById.set(
        chunk.id,
        parts.push(newStreamingPart('text', chunk.id, chunk.providerMetadata)) - 1,
      );
      return;
    case 'reasoning-start':
      work.reasoningById.set(
        chunk.id,
        parts.push(newStreamingPart('reasoning', chunk.id, chunk.providerMetadata)) - 1,
      );
      return;
    case 'text-delta':
    case 'reasoning-delta': {
      const type = chunk.type === 'text-delta' ? 'text' : 'reasoning';
      const [index, part] = streamed(work, type, chunk.id);
      parts[index] = withText(part, chunk.delta, chunk.providerMetadata);
      return;
    }
    case 'text-end':
    case 'reasoning-end': {
      const type = chunk.type === 'text-end' ? 'text' : 'reasoning';
      const [index, part] = streamed(work, type, chunk.id);
      parts[index] = ended(part, chunk);
      (type === 'text' ? work.textById : work.reasoningById).delete(chunk.id);
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
