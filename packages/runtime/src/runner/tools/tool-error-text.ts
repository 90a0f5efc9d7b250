import type { TextStreamPart, ToolSet } from 'ai';
import {
  TOOL_RESULT_TOO_LARGE_TEXT,
  ToolResultTooLargeError,
} from '../../errors/tool-result-too-large-error';

/** What a failed tool call shows by default in deltas, checkpoints and snapshots. */
export const TOOL_ERROR_TEXT = 'The tool failed.';

/** Maps a tool's error to the text every viewer of the run sees (never a secret). */
export type ToolErrorText = (
  error: unknown,
  call: { toolName: string; toolCallId: string },
) => string;

/**
 * `exposeToolErrors` as a mapping: `false`/absent redacts (`TOOL_ERROR_TEXT`), `true` shows the
 * error's message, a function decides. A function that throws falls back to the redaction.
 */
export function toolErrorTextOf(expose: boolean | ToolErrorText | undefined): ToolErrorText {
  if (typeof expose === 'function') return expose;
  if (expose === true) {
    return (error) =>
      error instanceof Error ? error.message : typeof error === 'string' ? error : TOOL_ERROR_TEXT;
  }
  return () => TOOL_ERROR_TEXT;
}

/**
 * Replaces the error of every failed application tool call (a thrown `execute`, an input that
 * did not parse) on the runner's copy of the SDK stream, so the UI chunks — and with them the
 * live deltas, checkpoints and snapshots — carry the mapped text. The model's own next step is
 * built by the SDK from its original error; provider-executed tool errors pass unchanged.
 * A mapping of parts (not a stream of its own): the runner applies it in the one transform that
 * observes the SDK's parts, since every stream stage costs a few promises per token.
 *
 * @example
 * const mapPart = mapToolErrors(toolErrorTextOf(options.exposeToolErrors));
 * observeSdkParts(result.stream, recorder, stop, stringModel, mapPart);
 */
export function mapToolErrors(
  text: ToolErrorText,
): (part: TextStreamPart<ToolSet>) => TextStreamPart<ToolSet> {
  const safely = (error: unknown, call: { toolName: string; toolCallId: string }) => {
    // A refused oversized result has one fixed text for everyone, whatever the mapping.
    if (ToolResultTooLargeError.isInstance(error)) return TOOL_RESULT_TOO_LARGE_TEXT;
    try {
      const mapped = text(error, call);
      return typeof mapped === 'string' ? mapped : TOOL_ERROR_TEXT;
    } catch {
      return TOOL_ERROR_TEXT;
    }
  };
  return (part) => {
    if (part.type === 'tool-error' && part.providerExecuted !== true) {
      const call = { toolName: part.toolName, toolCallId: part.toolCallId };
      return { ...part, error: safely(part.error, call) };
    }
    if (part.type === 'tool-call' && part.providerExecuted !== true) {
      const invalid = part as { invalid?: boolean; error?: unknown };
      if (invalid.invalid === true) {
        const call = { toolName: part.toolName, toolCallId: part.toolCallId };
        return { ...part, error: safely(invalid.error, call) } as typeof part;
      }
    }
    return part;
  };
}
