import { RunlightError } from './runlight-error';

/**
 * The text — fixed, with its code — that a tool call whose result exceeded
 * `maxToolResultBytes` shows everywhere: the tool part's `errorText` (deltas, checkpoints,
 * snapshots) and the model's tool result. Never any of the payload, and the same whatever
 * `exposeToolErrors` says, so viewers and the model see one outcome.
 */
export const TOOL_RESULT_TOO_LARGE_TEXT =
  'tool_result_too_large: the tool result exceeded the runtime limit and was discarded.';

/**
 * Thrown by the managed tool fence in place of a tool result larger than
 * `maxToolResultBytes` (its JSON, in UTF-8 bytes): the AI SDK ends that tool call as a tool
 * error (`output-error`) and the run continues. The message is `TOOL_RESULT_TOO_LARGE_TEXT`;
 * the fields are for the server log.
 */
export class ToolResultTooLargeError extends RunlightError {
  readonly kind = 'tool-result-too-large';
  override readonly name = 'ToolResultTooLargeError';
  /** The code in `TOOL_RESULT_TOO_LARGE_TEXT`. */
  readonly code = 'tool_result_too_large';

  constructor(
    readonly toolName: string,
    readonly toolCallId: string,
    /** At least this many bytes (measuring stops once past the limit). */
    readonly bytes: number,
    readonly limit: number,
  ) {
    super(TOOL_RESULT_TOO_LARGE_TEXT);
  }

  static isInstance(error: unknown): error is ToolResultTooLargeError {
    return RunlightError.hasKind(error, 'tool-result-too-large');
  }
}
