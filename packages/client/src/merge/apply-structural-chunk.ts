import type { UIMessage, UIMessageChunk } from '@runlight/protocol';
import { parsePartialJson } from './parse-partial-json';

type Part = UIMessage['parts'][number];

/**
 * A part as the fold edits it: a copy whose fields are written by name, as the AI SDK's
 * `processUIMessageStream` writes them (it mutates; the fold copies first, so no state a reader
 * holds ever changes). `asPart` hands it back as the message's part type.
 */
type Editable = { type: string } & Record<string, unknown>;

/** What `applyStructuralChunk` edits: the parts (replaced, never mutated) and the metadata. */
export interface MessageDraft {
  parts: Part[];
  metadata: unknown;
}

/** The one place an edited record becomes a part again: every field was written from a chunk. */
const asPart = (part: Editable): Part => part as unknown as Part;
const editable = (part: Part): Editable => ({ ...part });

const isToolPart = (part: Part) => part.type === 'dynamic-tool' || part.type.startsWith('tool-');
const toolCallIdOf = (part: Part) => ('toolCallId' in part ? part.toolCallId : undefined);

function currentStepStart(parts: readonly Part[]): number {
  for (let index = parts.length - 1; index >= 0; index--) {
    if (parts[index]!.type === 'step-start') return index + 1;
  }
  return 0;
}

/**
 * The SDK's `getToolInvocation`: the tool part of `toolCallId` in the current step, else the
 * last one anywhere; -1 for none (the SDK throws: a chunk for a call nobody began).
 */
function findToolInvocation(parts: readonly Part[], toolCallId: string): number {
  for (let index = currentStepStart(parts); index < parts.length; index++) {
    const part = parts[index]!;
    if (isToolPart(part) && toolCallIdOf(part) === toolCallId) return index;
  }
  for (let index = parts.length - 1; index >= 0; index--) {
    const part = parts[index]!;
    if (isToolPart(part) && toolCallIdOf(part) === toolCallId) return index;
  }
  return -1;
}

/** The current step's part of `toolCallId` of one kind (static `tool-*` or `dynamic-tool`). */
function findInStep(parts: readonly Part[], toolCallId: string, dynamic: boolean): number {
  for (let index = currentStepStart(parts); index < parts.length; index++) {
    const part = parts[index]!;
    const kind = dynamic ? part.type === 'dynamic-tool' : part.type.startsWith('tool-');
    if (kind && toolCallIdOf(part) === toolCallId) return index;
  }
  return -1;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null &&
  typeof value === 'object' &&
  !Array.isArray(value) &&
  !(value instanceof Date) &&
  !(value instanceof RegExp);

/** The AI SDK's `mergeObjects` for metadata: nested objects merge, anything else replaces. */
function mergeObjects(base: unknown, overrides: unknown): unknown {
  if (base === undefined) return overrides;
  if (overrides === undefined || !isPlainObject(overrides) || !isPlainObject(base)) {
    return overrides === undefined ? base : overrides;
  }
  const result: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(overrides)) {
    if (key === '__proto__' || key === 'constructor' || key === 'prototype') continue;
    if (value === undefined) continue;
    const current = key in base ? base[key] : undefined;
    result[key] =
      isPlainObject(value) && isPlainObject(current) ? mergeObjects(current, value) : value;
  }
  return result;
}

/** What the SDK's `updateToolPart` / `updateDynamicToolPart` are given. */
interface ToolUpdate {
  toolCallId: string;
  toolName: string;
  dynamic: boolean;
  state: string;
  input?: unknown;
  inputEncoding?: unknown;
  output?: unknown;
  errorText?: unknown;
  rawInput?: unknown;
  preliminary?: unknown;
  providerExecuted?: unknown;
  providerMetadata?: unknown;
  title?: unknown;
  toolMetadata?: unknown;
}

const resultState = (state: string) => state === 'output-available' || state === 'output-error';

/**
 * The SDK's `updateToolPart` / `updateDynamicToolPart`: updates the part at `index` (or the
 * current step's part of the call, of the update's kind) or adds one — field by field as the SDK
 * writes them.
 */
function updateTool(draft: MessageDraft, update: ToolUpdate, at?: number): void {
  const index = at ?? findInStep(draft.parts, update.toolCallId, update.dynamic);
  const metadataKey = resultState(update.state) ? 'resultProviderMetadata' : 'callProviderMetadata';
  if (index >= 0) {
    const part = editable(draft.parts[index]!);
    part.state = update.state;
    if (update.dynamic) part.toolName = update.toolName;
    else part.type = `tool-${update.toolName}`;
    part.input = update.input;
    part.output = update.output;
    part.errorText = update.errorText;
    part.rawInput = update.rawInput;
    if (update.inputEncoding != null) part.inputEncoding = update.inputEncoding;
    else delete part.inputEncoding;
    part.preliminary = update.preliminary;
    if (update.title !== undefined) part.title = update.title;
    if (update.toolMetadata !== undefined) part.toolMetadata = update.toolMetadata;
    part.providerExecuted = update.providerExecuted ?? part.providerExecuted;
    if (update.providerMetadata != null) part[metadataKey] = update.providerMetadata;
    draft.parts[index] = asPart(part);
    return;
  }
  const part: Editable = update.dynamic
    ? { type: 'dynamic-tool', toolName: update.toolName }
    : { type: `tool-${update.toolName}` };
  Object.assign(part, {
    toolCallId: update.toolCallId,
    state: update.state,
    title: update.title,
    input: update.input,
    output: update.output,
    rawInput: update.rawInput,
    errorText: update.errorText,
    providerExecuted: update.providerExecuted,
    preliminary: update.preliminary,
  });
  if (update.toolMetadata !== undefined) part.toolMetadata = update.toolMetadata;
  if (update.inputEncoding != null) part.inputEncoding = update.inputEncoding;
  if (update.providerMetadata != null) part[metadataKey] = update.providerMetadata;
  draft.parts.push(asPart(part));
}

/** The static tool name of a `tool-<name>` part, or a dynamic part's `toolName`. */
function toolNameOf(part: Part): string {
  if (part.type === 'dynamic-tool' && 'toolName' in part) return part.toolName;
  return part.type.slice('tool-'.length);
}

/** A field of a part, whatever its type (the SDK reads them the same way). */
const field = (part: Part, name: string): unknown => (part as Editable)[name];

/**
 * Applies a chunk that is not a text or reasoning delta — tool inputs, calls and results,
 * approvals, files, sources, data parts, metadata, step resets — to `draft`, exactly as the AI
 * SDK's `readUIMessageStream` does (the server materialises the same message with it; a
 * property test compares the two on generated chunk streams). Narrows on `chunk.type`: each
 * case reads the fields its chunk type declares. Returns false for chunks that leave the
 * message unchanged, and for those the SDK would reject (a result for a call nobody began).
 */
export function applyStructuralChunk(draft: MessageDraft, chunk: UIMessageChunk): boolean {
  const parts = draft.parts;
  switch (chunk.type) {
    case 'tool-input-start':
      updateTool(draft, {
        toolCallId: chunk.toolCallId,
        toolName: chunk.toolName,
        dynamic: chunk.dynamic === true,
        state: 'input-streaming',
        inputEncoding: chunk.inputEncoding,
        input: undefined,
        providerExecuted: chunk.providerExecuted,
        title: chunk.title,
        toolMetadata: chunk.toolMetadata,
        providerMetadata: chunk.providerMetadata,
      });
      return true;
    case 'tool-input-delta': {
      // The SDK's partial tool call, read back from the part it streams into (so a call begun
      // before a checkpoint continues, as the SDK's state rebuilt from that message does).
      const index = findToolInvocation(parts, chunk.toolCallId);
      if (index < 0) return false;
      const part = parts[index]!;
      const previous = field(part, 'rawInput');
      const rawInput = `${typeof previous === 'string' ? previous : ''}${chunk.inputTextDelta}`;
      const inputEncoding = field(part, 'inputEncoding');
      updateTool(
        draft,
        {
          toolCallId: chunk.toolCallId,
          toolName: toolNameOf(part),
          dynamic: part.type === 'dynamic-tool',
          state: 'input-streaming',
          inputEncoding,
          input: inputEncoding === 'text' ? rawInput : parsePartialJson(rawInput),
          rawInput,
          title: field(part, 'title'),
          toolMetadata: field(part, 'toolMetadata'),
        },
        index,
      );
      return true;
    }
    case 'tool-input-available':
      updateTool(draft, {
        toolCallId: chunk.toolCallId,
        toolName: chunk.toolName,
        dynamic: chunk.dynamic === true,
        state: 'input-available',
        input: chunk.input,
        providerExecuted: chunk.providerExecuted,
        providerMetadata: chunk.providerMetadata,
        title: chunk.title,
        toolMetadata: chunk.toolMetadata,
      });
      return true;
    case 'tool-input-error': {
      const existing = findInStepAnyKind(parts, chunk.toolCallId);
      updateTool(draft, {
        toolCallId: chunk.toolCallId,
        toolName: chunk.toolName,
        dynamic: existing === undefined ? chunk.dynamic === true : existing.type === 'dynamic-tool',
        state: 'output-error',
        input: chunk.input,
        errorText: chunk.errorText,
        providerExecuted: chunk.providerExecuted,
        providerMetadata: chunk.providerMetadata,
        toolMetadata: chunk.toolMetadata,
      });
      return true;
    }
    case 'tool-output-available':
    case 'tool-output-error': {
      const index = findToolInvocation(parts, chunk.toolCallId);
      if (index < 0) return false;
      const part = parts[index]!;
      const dynamic = part.type === 'dynamic-tool';
      const available = chunk.type === 'tool-output-available';
      updateTool(
        draft,
        {
          toolCallId: chunk.toolCallId,
          toolName: toolNameOf(part),
          dynamic,
          state: available ? 'output-available' : 'output-error',
          input: field(part, 'input'),
          output: available ? chunk.output : undefined,
          errorText: available ? undefined : chunk.errorText,
          rawInput: !available && !dynamic ? field(part, 'rawInput') : undefined,
          preliminary: available ? chunk.preliminary : undefined,
          providerExecuted: chunk.providerExecuted,
          providerMetadata: chunk.providerMetadata,
          title: field(part, 'title'),
          toolMetadata: chunk.toolMetadata ?? field(part, 'toolMetadata'),
        },
        index,
      );
      return true;
    }
    case 'tool-output-denied': {
      const index = findToolInvocation(parts, chunk.toolCallId);
      if (index < 0) return false;
      const part = editable(parts[index]!);
      part.state = 'output-denied';
      parts[index] = asPart(part);
      return true;
    }
    case 'tool-approval-request': {
      const index = findToolInvocation(parts, chunk.toolCallId);
      if (index < 0) return false;
      const part = editable(parts[index]!);
      part.state = 'approval-requested';
      part.approval = {
        id: chunk.approvalId,
        ...(chunk.approvalDescriptor == null ? {} : { descriptor: chunk.approvalDescriptor }),
        ...(Object.hasOwn(chunk, 'inputSchemaInput')
          ? { inputSchemaInput: chunk.inputSchemaInput }
          : {}),
        ...(chunk.reason == null ? {} : { requestReason: chunk.reason }),
        ...(chunk.isAutomatic === true ? { isAutomatic: true } : {}),
        ...(chunk.signature == null ? {} : { signature: chunk.signature }),
      };
      parts[index] = asPart(part);
      return true;
    }
    case 'tool-approval-response': {
      const index = parts.findIndex(
        (candidate) =>
          isToolPart(candidate) &&
          'approval' in candidate &&
          candidate.approval?.id === chunk.approvalId,
      );
      if (index < 0) return false;
      const part = editable(parts[index]!);
      const approval = isPlainObject(part.approval) ? part.approval : { id: chunk.approvalId };
      part.state = 'approval-responded';
      part.approval = {
        ...approval,
        id: chunk.approvalId,
        approved: chunk.approved,
        ...(chunk.reason == null ? {} : { reason: chunk.reason }),
      };
      if (chunk.providerExecuted != null) part.providerExecuted = chunk.providerExecuted;
      if (chunk.providerMetadata != null) part.callProviderMetadata = chunk.providerMetadata;
      parts[index] = asPart(part);
      return true;
    }
    case 'file':
    case 'reasoning-file':
      parts.push({
        type: chunk.type,
        mediaType: chunk.mediaType,
        url: chunk.url,
        ...(chunk.providerMetadata == null ? {} : { providerMetadata: chunk.providerMetadata }),
      });
      return true;
    case 'source-url':
      parts.push({
        type: 'source-url',
        sourceId: chunk.sourceId,
        url: chunk.url,
        title: chunk.title,
        providerMetadata: chunk.providerMetadata,
      });
      return true;
    case 'source-document':
      parts.push({
        type: 'source-document',
        sourceId: chunk.sourceId,
        mediaType: chunk.mediaType,
        title: chunk.title,
        filename: chunk.filename,
        providerMetadata: chunk.providerMetadata,
      });
      return true;
    case 'custom':
      parts.push({ type: 'custom', kind: chunk.kind, providerMetadata: chunk.providerMetadata });
      return true;
    case 'steering-message':
      parts.push({ type: 'steering-message', id: chunk.id, parts: chunk.parts });
      return true;
    case 'reset-step': {
      const from = currentStepStart(parts);
      if (from === parts.length) return false;
      parts.splice(from);
      return true;
    }
    case 'start':
    case 'finish':
    case 'message-metadata':
      if (chunk.messageMetadata == null) return false;
      draft.metadata = mergeObjects(draft.metadata, chunk.messageMetadata);
      return true;
    case 'text-start':
    case 'text-delta':
    case 'text-end':
    case 'reasoning-start':
    case 'reasoning-delta':
    case 'reasoning-end':
    case 'start-step':
    case 'finish-step':
    case 'error':
    case 'abort':
      return false;
    default: {
      // Only data parts are left (`data-<name>`); a transient one is never part of the message.
      if (chunk.transient === true) return false;
      const index =
        chunk.id == null
          ? -1
          : parts.findIndex((part) => part.type === chunk.type && field(part, 'id') === chunk.id);
      if (index < 0) {
        parts.push({ ...chunk });
        return true;
      }
      const part = editable(parts[index]!);
      part.data = chunk.data;
      parts[index] = asPart(part);
      return true;
    }
  }
}

/** The current step's tool part of `toolCallId`, of either kind. */
function findInStepAnyKind(parts: readonly Part[], toolCallId: string): Part | undefined {
  for (let index = currentStepStart(parts); index < parts.length; index++) {
    const part = parts[index]!;
    if (isToolPart(part) && toolCallIdOf(part) === toolCallId) return part;
  }
  return undefined;
}
