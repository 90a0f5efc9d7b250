import type { UIMessage, UIMessageChunk } from 'ai';
import * as z from 'zod/mini';

/**
 * Boundary schemas for the AI SDK's `UIMessage` and `UIMessageChunk`.
 *
 * They check the shape every consumer relies on (ids, roles, part and chunk types with their
 * required fields) and let the SDK's optional fields through (`looseObject`), so a newer SDK
 * that adds a field does not break old clients.
 */
const PartSchema = z.looseObject({
  type: z.string().check(z.minLength(1, 'must be a non-empty part type')),
});

export const UIMessageSchema = z.looseObject({
  id: z.string().check(z.minLength(1, 'must be a non-empty message id')),
  role: z.enum(['system', 'user', 'assistant']),
  metadata: z.optional(z.unknown()),
  parts: z.array(PartSchema),
}) as unknown as z.ZodMiniType<UIMessage>;

const id = z.string();
const toolCallId = z.string();
const toolName = z.string();
const chunk = <T extends string, S extends z.core.$ZodLooseShape>(type: T, shape: S) =>
  z.looseObject({ type: z.literal(type), ...shape });

/** Every chunk type of `UIMessageChunk` in `ai@7`, with the fields the SDK requires. */
export const UIMessageChunkSchema = z.union([
  chunk('text-start', { id }),
  chunk('text-delta', { id, delta: z.string() }),
  chunk('text-end', { id }),
  chunk('reasoning-start', { id }),
  chunk('reasoning-delta', { id, delta: z.string() }),
  chunk('reasoning-end', { id }),
  chunk('error', { errorText: z.string() }),
  chunk('tool-input-start', { toolCallId, toolName }),
  chunk('tool-input-delta', { toolCallId, inputTextDelta: z.string() }),
  chunk('tool-input-available', { toolCallId, toolName, input: z.unknown() }),
  chunk('tool-input-error', { toolCallId, toolName, input: z.unknown(), errorText: z.string() }),
  chunk('tool-approval-request', { approvalId: z.string(), toolCallId }),
  chunk('tool-approval-response', { approvalId: z.string(), approved: z.boolean() }),
  chunk('tool-output-available', { toolCallId, output: z.unknown() }),
  chunk('tool-output-error', { toolCallId, errorText: z.string() }),
  chunk('tool-output-denied', { toolCallId }),
  chunk('custom', {}),
  chunk('source-url', { sourceId: z.string(), url: z.string() }),
  chunk('source-document', { sourceId: z.string(), mediaType: z.string(), title: z.string() }),
  chunk('file', { url: z.string(), mediaType: z.string() }),
  chunk('reasoning-file', { url: z.string(), mediaType: z.string() }),
  chunk('steering-message', { id }),
  chunk('start-step', {}),
  chunk('finish-step', {}),
  chunk('reset-step', {}),
  chunk('start', { messageId: z.optional(z.string()) }),
  chunk('finish', {}),
  chunk('abort', {}),
  chunk('message-metadata', { messageMetadata: z.unknown() }),
  z.looseObject({
    type: z.string().check(z.regex(/^data-/, 'must be a known chunk type')),
    data: z.unknown(),
  }),
]) as unknown as z.ZodMiniType<UIMessageChunk>;

export type { UIMessage, UIMessageChunk };
