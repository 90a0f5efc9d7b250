import type { UIMessage, UIMessageChunk } from '@runlight/protocol';

type Part = UIMessage['parts'][number];
type AnyPart = Record<string, unknown> & { type: string };
type AnyChunk = Record<string, unknown> & { type: string };

/** What `applyStructuralChunk` edits: the parts (replaced, never mutated) and the metadata. */
export interface MessageDraft {
  parts: Part[];
  metadata: unknown;
}

const isToolPart = (part: AnyPart) => part.type === 'dynamic-tool' || part.type.startsWith('tool-');

function currentStepStart(parts: Part[]): number {
  for (let index = parts.length - 1; index >= 0; index--) {
    if (parts[index]!.type === 'step-start') return index + 1;
  }
  return 0;
}

/** The tool part of `toolCallId`: in the current step first, else the last anywhere. */
function findToolPart(parts: Part[], toolCallId: unknown, currentStepOnly = false): number {
  const from = currentStepStart(parts);
  for (let index = from; index < parts.length; index++) {
    const part = parts[index] as AnyPart;
    if (isToolPart(part) && part.toolCallId === toolCallId) return index;
  }
  if (currentStepOnly) return -1;
  for (let index = parts.length - 1; index >= 0; index--) {
    const part = parts[index] as AnyPart;
    if (isToolPart(part) && part.toolCallId === toolCallId) return index;
  }
  return -1;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The AI SDK's metadata merge: nested objects merge, everything else is replaced. */
function mergeObjects(base: unknown, overrides: unknown): unknown {
  if (base === undefined) return overrides;
  if (overrides === undefined || !isPlainObject(base) || !isPlainObject(overrides)) {
    return overrides === undefined ? base : overrides;
  }
  const result: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(overrides)) {
    if (key === '__proto__' || key === 'constructor' || key === 'prototype') continue;
    if (value === undefined) continue;
    result[key] =
      isPlainObject(value) && isPlainObject(base[key]) ? mergeObjects(base[key], value) : value;
  }
  return result;
}

interface ToolUpdate {
  toolCallId: string;
  toolName: string;
  dynamic: boolean;
  state: string;
  input?: unknown;
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

/** The SDK's `updateToolPart` / `updateDynamicToolPart`: update the call's part or add it. */
function updateTool(draft: MessageDraft, update: ToolUpdate, index: number): void {
  const metadataKey = resultState(update.state) ? 'resultProviderMetadata' : 'callProviderMetadata';
  const identity = update.dynamic
    ? { type: 'dynamic-tool', toolName: update.toolName }
    : { type: `tool-${update.toolName}` };
  if (index >= 0) {
    const part = { ...(draft.parts[index] as AnyPart) };
    Object.assign(part, identity, {
      state: update.state,
      input: update.input,
      output: update.output,
      errorText: update.errorText,
      rawInput: update.rawInput,
      preliminary: update.preliminary,
      providerExecuted: update.providerExecuted ?? part.providerExecuted,
    });
    delete part.inputEncoding;
    if (update.title !== undefined) part.title = update.title;
    if (update.toolMetadata !== undefined) part.toolMetadata = update.toolMetadata;
    if (update.providerMetadata != null) part[metadataKey] = update.providerMetadata;
    draft.parts[index] = part as unknown as Part;
    return;
  }
  draft.parts.push({
    ...identity,
    toolCallId: update.toolCallId,
    state: update.state,
    title: update.title,
    ...(update.toolMetadata === undefined ? {} : { toolMetadata: update.toolMetadata }),
    input: update.input,
    output: update.output,
    rawInput: update.rawInput,
    errorText: update.errorText,
    providerExecuted: update.providerExecuted,
    preliminary: update.preliminary,
    ...(update.providerMetadata == null ? {} : { [metadataKey]: update.providerMetadata }),
  } as unknown as Part);
}

/** The static tool name of a `tool-<name>` part, or a dynamic part's `toolName`. */
const toolNameOf = (part: AnyPart) =>
  part.type === 'dynamic-tool' ? String(part.toolName) : part.type.slice('tool-'.length);

/**
 * Applies a chunk that is not a text, reasoning or tool-input stream delta — tool calls and
 * results, approvals, files, sources, data parts, metadata, step resets — to `draft`, exactly
 * as the AI SDK's `readUIMessageStream` does (the server materialises the same message with
 * it). Returns false for chunks that leave the message unchanged.
 */
export function applyStructuralChunk(draft: MessageDraft, chunk: UIMessageChunk): boolean {
  const c = chunk as AnyChunk;
  const parts = draft.parts;
  switch (c.type) {
    case 'tool-input-available':
    case 'tool-input-error': {
      const index = findToolPart(parts, c.toolCallId, true);
      const existing = index >= 0 ? (parts[index] as AnyPart) : undefined;
      const dynamic =
        c.type === 'tool-input-error' && existing !== undefined
          ? existing.type === 'dynamic-tool'
          : c.dynamic === true;
      updateTool(
        draft,
        {
          toolCallId: String(c.toolCallId),
          toolName: String(c.toolName),
          dynamic,
          state: c.type === 'tool-input-available' ? 'input-available' : 'output-error',
          input: c.input,
          errorText: c.errorText,
          providerExecuted: c.providerExecuted,
          providerMetadata: c.providerMetadata,
          title: c.type === 'tool-input-available' ? c.title : undefined,
          toolMetadata: c.toolMetadata,
        },
        index,
      );
      return true;
    }
    case 'tool-output-available':
    case 'tool-output-error': {
      const index = findToolPart(parts, c.toolCallId);
      if (index < 0) return false;
      const part = parts[index] as AnyPart;
      const available = c.type === 'tool-output-available';
      updateTool(
        draft,
        {
          toolCallId: String(c.toolCallId),
          toolName: toolNameOf(part),
          dynamic: part.type === 'dynamic-tool',
          state: available ? 'output-available' : 'output-error',
          input: part.input,
          output: available ? c.output : undefined,
          errorText: available ? undefined : c.errorText,
          rawInput: !available && part.type !== 'dynamic-tool' ? part.rawInput : undefined,
          preliminary: available ? c.preliminary : undefined,
          providerExecuted: c.providerExecuted,
          providerMetadata: c.providerMetadata,
          title: part.title,
          toolMetadata: c.toolMetadata ?? part.toolMetadata,
        },
        index,
      );
      return true;
    }
    case 'tool-output-denied':
    case 'tool-approval-request': {
      const index = findToolPart(parts, c.toolCallId);
      if (index < 0) return false;
      const part: AnyPart = { ...(parts[index] as AnyPart) };
      if (c.type === 'tool-output-denied') {
        part.state = 'output-denied';
      } else {
        part.state = 'approval-requested';
        part.approval = {
          id: c.approvalId,
          ...(c.approvalDescriptor == null ? {} : { descriptor: c.approvalDescriptor }),
          ...(Object.hasOwn(c, 'inputSchemaInput') ? { inputSchemaInput: c.inputSchemaInput } : {}),
          ...(c.reason == null ? {} : { requestReason: c.reason }),
          ...(c.isAutomatic === true ? { isAutomatic: true } : {}),
          ...(c.signature == null ? {} : { signature: c.signature }),
        };
      }
      parts[index] = part as unknown as Part;
      return true;
    }
    case 'tool-approval-response': {
      const index = parts.findIndex(
        (p) =>
          isToolPart(p as AnyPart) &&
          (p as AnyPart & { approval?: { id?: unknown } }).approval?.id === c.approvalId,
      );
      if (index < 0) return false;
      const part: AnyPart = { ...(parts[index] as AnyPart) };
      const approval = (part.approval as Record<string, unknown> | undefined) ?? {
        id: c.approvalId,
      };
      part.state = 'approval-responded';
      part.approval = {
        ...approval,
        id: c.approvalId,
        approved: c.approved,
        ...(c.reason == null ? {} : { reason: c.reason }),
      };
      if (c.providerExecuted != null) part.providerExecuted = c.providerExecuted;
      if (c.providerMetadata != null) part.callProviderMetadata = c.providerMetadata;
      parts[index] = part as unknown as Part;
      return true;
    }
    case 'file':
    case 'reasoning-file':
      parts.push({
        type: c.type,
        mediaType: c.mediaType,
        url: c.url,
        ...(c.providerMetadata == null ? {} : { providerMetadata: c.providerMetadata }),
      } as unknown as Part);
      return true;
    case 'source-url':
      parts.push({
        type: 'source-url',
        sourceId: c.sourceId,
        url: c.url,
        title: c.title,
        providerMetadata: c.providerMetadata,
      } as unknown as Part);
      return true;
    case 'source-document':
      parts.push({
        type: 'source-document',
        sourceId: c.sourceId,
        mediaType: c.mediaType,
        title: c.title,
        filename: c.filename,
        providerMetadata: c.providerMetadata,
      } as unknown as Part);
      return true;
    case 'custom':
      parts.push({
        type: 'custom',
        kind: c.kind,
        providerMetadata: c.providerMetadata,
      } as unknown as Part);
      return true;
    case 'steering-message':
      parts.push({ type: 'steering-message', id: c.id, parts: c.parts } as unknown as Part);
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
      if (c.messageMetadata == null) return false;
      draft.metadata = mergeObjects(draft.metadata, c.messageMetadata);
      return true;
    default: {
      if (!c.type.startsWith('data-') || c.transient === true) return false;
      const index =
        c.id == null ? -1 : parts.findIndex((p) => p.type === c.type && (p as AnyPart).id === c.id);
      if (index >= 0)
        parts[index] = { ...(parts[index] as AnyPart), data: c.data } as unknown as Part;
      else parts.push({ ...c } as unknown as Part);
      return true;
    }
  }
}
