import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import type { TextStreamPart, ToolSet } from 'ai';

/**
 * The ADR 0174 first-output rule for a provider stream part: the first non-empty text,
 * reasoning or streaming tool-argument delta, or a complete tool call. Metadata,
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
      return true;
    default:
      return false;
  }
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
      return true;
    default:
      return false;
  }
}
