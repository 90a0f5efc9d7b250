import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { asSchema, safeParseJSON, safeValidateTypes } from '@ai-sdk/provider-utils';
import type { TextStreamPart, ToolSet } from 'ai';

/**
 * The ADR 0174 first-output rule for a provider stream part: the first non-empty text,
 * reasoning or streaming tool-argument delta, or a complete tool call whose input is JSON
 * (the runner also checks the tool's input schema: `isParsedToolCall`). Metadata,
 * `stream-start`, usage (`finish`), files and sources never qualify — unlike the AI SDK's own
 * definition, which counts files.
 *
 * @example
 * isFirstOutput({ type: 'text-delta', id: 't', delta: 'Hi' }); // true
 * isFirstOutput({ type: 'response-metadata', id: 'r' }); // false
 */
export function isFirstOutput(part: LanguageModelV4StreamPart): boolean {
  switch (part.type) {
    case 'text-delta':
    case 'reasoning-delta':
    case 'tool-input-delta':
      return part.delta !== '';
    case 'tool-call':
      return parsesAsJson(part.input);
    default:
      return false;
  }
}

/** As the AI SDK reads a tool call's input: empty text is `{}`, anything else must be JSON. */
function parsesAsJson(input: string): boolean {
  if (input.trim() === '') return true;
  try {
    JSON.parse(input);
    return true;
  } catch {
    return false;
  }
}

/**
 * True when a provider `tool-call` is a complete *parsed* call (ADR 0174), as the AI SDK will
 * parse it: a known tool, JSON input (empty is `{}`), valid against the tool's input schema.
 *
 * @example
 * await isParsedToolCall({ type: 'tool-call', toolCallId: 'c', toolName: 'weather', input: '{"city": ' }, tools); // false
 */
export async function isParsedToolCall(
  part: Extract<LanguageModelV4StreamPart, { type: 'tool-call' }>,
  tools: ToolSet | undefined,
): Promise<boolean> {
  const tool = tools?.[part.toolName];
  if (!tool) return false;
  const parsed =
    part.input.trim() === ''
      ? { success: true as const, value: {} }
      : await safeParseJSON({ text: part.input });
  if (!parsed.success) return false;
  if (tool.inputSchema === undefined) return true;
  const validated = await safeValidateTypes({
    value: parsed.value,
    schema: asSchema(tool.inputSchema as Parameters<typeof asSchema>[0]),
  });
  return validated.success;
}

/** The first-output rule on the SDK's normalized parts (used for model ids, no middleware). */
export function isFirstSdkOutput(part: TextStreamPart<ToolSet>): boolean {
  switch (part.type) {
    case 'text-delta':
    case 'reasoning-delta':
      return part.text !== '';
    case 'tool-input-delta':
      return part.delta !== '';
    case 'tool-call':
      // The SDK marks a call whose input did not parse (or names no tool) `invalid`.
      return (part as { invalid?: boolean }).invalid !== true;
    default:
      return false;
  }
}
