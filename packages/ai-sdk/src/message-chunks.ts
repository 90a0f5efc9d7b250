import type { UIMessage, UIMessageChunk } from 'ai';

type Part = UIMessage['parts'][number];

/** What was already sent to the chat for one part of the message, by index. */
type SentPart =
  | { kind: 'text' | 'reasoning'; id: string; length: number; ended: boolean }
  | { kind: 'tool'; toolCallId: string; rank: number }
  | { kind: 'other' };

/**
 * What a chat already holds of the run's assistant message, so the next state of the message
 * becomes only the chunks it lacks. Built empty (a fresh or replayed message) or from the
 * chat's own copy of the message (a continuation after approvals).
 */
export interface ChunkCursor {
  started: boolean;
  messageId: string | null;
  parts: SentPart[];
}

/** How far a tool part has come; a state never goes back (the chat may be ahead locally). */
const TOOL_RANK: Record<string, number> = {
  'input-streaming': 0,
  'input-available': 1,
  'approval-requested': 2,
  'approval-responded': 3,
  'output-available': 4,
  'output-error': 4,
  'output-denied': 4,
};

interface ToolPart {
  type: string;
  toolCallId: string;
  toolName?: string;
  state: string;
  input?: unknown;
  output?: unknown;
  errorText?: string;
  preliminary?: boolean;
  approval?: { id: string; approved?: boolean; reason?: string };
}

function isToolPart(part: Part): part is Part & ToolPart {
  return part.type === 'dynamic-tool' || part.type.startsWith('tool-');
}

function toolNameOf(part: ToolPart): string {
  return part.type === 'dynamic-tool' ? (part.toolName ?? 'unknown') : part.type.slice(5);
}

/** A cursor for a chat that holds nothing of the message yet. */
export function emptyChunkCursor(): ChunkCursor {
  return { started: false, messageId: null, parts: [] };
}

/**
 * A cursor for a chat that already holds `message` (its local copy, possibly ahead of the run
 * where the user answered approvals): the stream continues it without a `start` reset. The
 * message must have no text or reasoning part still streaming (a run paused for approvals has
 * none): the chat only takes deltas for parts opened in the same stream.
 */
export function chunkCursorOf(message: UIMessage): ChunkCursor {
  return {
    started: true,
    messageId: message.id,
    parts: message.parts.map((part, index) => sentOf(part, index)),
  };
}

function sentOf(part: Part, index: number): SentPart {
  if (part.type === 'text' || part.type === 'reasoning') {
    const id = (part.type === 'reasoning' ? part.id : undefined) ?? `p${index}`;
    return { kind: part.type, id, length: part.text.length, ended: part.state !== 'streaming' };
  }
  if (isToolPart(part)) {
    return { kind: 'tool', toolCallId: part.toolCallId, rank: TOOL_RANK[part.state] ?? 0 };
  }
  return { kind: 'other' };
}

/**
 * The `UIMessageChunk`s that take a chat from what `cursor` says it holds to `message`, and
 * the cursor after them. Text and reasoning only grow (the client's merge rules never shrink
 * them), so a part that grew sends its new suffix; a tool part sends the chunks of each state
 * it passed; a part the chat holds already sends nothing — so a message replayed after a
 * reconnect or a checkpoint replacing live deltas never duplicates text.
 *
 * @example
 * const { chunks, cursor: next } = messageChunks(emptyChunkCursor(), message, { runId });
 */
export function messageChunks(
  cursor: ChunkCursor,
  message: UIMessage,
  metadata?: unknown,
): { chunks: UIMessageChunk[]; cursor: ChunkCursor } {
  const chunks: UIMessageChunk[] = [];
  let started = cursor.started;
  if (!started) {
    chunks.push(
      metadata === undefined
        ? { type: 'start', messageId: message.id }
        : { type: 'start', messageId: message.id, messageMetadata: metadata },
    );
    started = true;
  }
  const parts = cursor.parts.slice();
  message.parts.forEach((part, index) => {
    const sent = parts[index];
    parts[index] = advancePart(sent, part, index, chunks);
  });
  return { chunks, cursor: { started, messageId: cursor.messageId ?? message.id, parts } };
}

/** Ends every text and reasoning part still open (before `finish`). */
export function closeParts(cursor: ChunkCursor): { chunks: UIMessageChunk[]; cursor: ChunkCursor } {
  const chunks: UIMessageChunk[] = [];
  const parts = cursor.parts.map((sent): SentPart => {
    if ((sent.kind === 'text' || sent.kind === 'reasoning') && !sent.ended) {
      chunks.push({ type: sent.kind === 'text' ? 'text-end' : 'reasoning-end', id: sent.id });
      return { ...sent, ended: true };
    }
    return sent;
  });
  return { chunks, cursor: { ...cursor, parts } };
}

function advancePart(
  sent: SentPart | undefined,
  part: Part,
  index: number,
  chunks: UIMessageChunk[],
): SentPart {
  if (part.type === 'text' || part.type === 'reasoning') {
    return advanceText(sent, part, index, chunks);
  }
  if (isToolPart(part)) return advanceTool(sent, part, chunks);
  if (sent !== undefined) return sent;
  if (part.type === 'step-start') chunks.push({ type: 'start-step' });
  else if (part.type === 'source-url') {
    chunks.push({ type: 'source-url', sourceId: part.sourceId, url: part.url, ...titleOf(part) });
  } else if (part.type === 'file') {
    chunks.push({ type: 'file', url: part.url, mediaType: part.mediaType });
  } else if (part.type.startsWith('data-') && 'data' in part) {
    chunks.push({ type: part.type, data: part.data } as UIMessageChunk);
  }
  return { kind: 'other' };
}

function titleOf(part: { title?: string }): { title?: string } {
  return part.title === undefined ? {} : { title: part.title };
}

function advanceText(
  sent: SentPart | undefined,
  part: Extract<Part, { type: 'text' | 'reasoning' }>,
  index: number,
  chunks: UIMessageChunk[],
): SentPart {
  const kind = part.type;
  // The chat names a reasoning part by its chunk id: the run's own id when the part has one.
  const ownId = part.type === 'reasoning' ? part.id : undefined;
  let current =
    sent !== undefined && sent.kind === kind
      ? sent
      : { kind, id: ownId ?? `p${index}`, length: 0, ended: false };
  if (sent === undefined || sent.kind !== kind) {
    const metadata = part.providerMetadata ? { providerMetadata: part.providerMetadata } : {};
    chunks.push({
      type: kind === 'text' ? 'text-start' : 'reasoning-start',
      id: current.id,
      ...metadata,
    });
  }
  if (part.text.length > current.length) {
    const delta = part.text.slice(current.length);
    chunks.push({
      type: kind === 'text' ? 'text-delta' : 'reasoning-delta',
      id: current.id,
      delta,
    });
    current = { ...current, length: part.text.length };
  }
  if (part.state === 'done' && !current.ended) {
    chunks.push({ type: kind === 'text' ? 'text-end' : 'reasoning-end', id: current.id });
    current = { ...current, ended: true };
  }
  return current;
}

function advanceTool(
  sent: SentPart | undefined,
  part: ToolPart,
  chunks: UIMessageChunk[],
): SentPart {
  const from = sent?.kind === 'tool' && sent.toolCallId === part.toolCallId ? sent.rank : -1;
  const to = TOOL_RANK[part.state] ?? 0;
  if (to <= from) return sent as SentPart;
  const toolCallId = part.toolCallId;
  const toolName = toolNameOf(part);
  const dynamic = part.type === 'dynamic-tool' ? { dynamic: true } : {};
  if (from < 0) chunks.push({ type: 'tool-input-start', toolCallId, toolName, ...dynamic });
  if (from < 1 && to >= 1) {
    chunks.push({
      type: 'tool-input-available',
      toolCallId,
      toolName,
      input: part.input,
      ...dynamic,
    });
  }
  const approval = part.approval;
  if (from < 2 && to >= 2 && approval !== undefined) {
    chunks.push({ type: 'tool-approval-request', approvalId: approval.id, toolCallId });
  }
  if (from < 3 && to >= 3 && approval !== undefined && approval.approved !== undefined) {
    chunks.push({
      type: 'tool-approval-response',
      approvalId: approval.id,
      approved: approval.approved,
      ...(approval.reason === undefined ? {} : { reason: approval.reason }),
    });
  }
  if (to === 4) {
    if (part.state === 'output-available') {
      chunks.push({ type: 'tool-output-available', toolCallId, output: part.output, ...dynamic });
    } else if (part.state === 'output-error') {
      chunks.push({
        type: 'tool-output-error',
        toolCallId,
        errorText: part.errorText ?? '',
        ...dynamic,
      });
    } else {
      chunks.push({ type: 'tool-output-denied', toolCallId });
    }
  }
  return { kind: 'tool', toolCallId, rank: to };
}
