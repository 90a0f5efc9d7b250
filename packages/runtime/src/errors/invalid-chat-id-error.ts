import { RunlightError } from './runlight-error';

/**
 * A chat id that breaks the rules of a run id (`RunIdSchema`: 1–200 characters of letters,
 * digits and `. _ ~ : -`) reached the store. Every driver gets the same check before it is
 * called, so a database never sees such an id (a `\u0000` made PostgreSQL answer a raw error,
 * a `500`) and every store takes exactly the chat ids the chat routes take.
 */
export class InvalidChatIdError extends RunlightError {
  readonly kind = 'invalid-chat-id';
  override readonly name = 'InvalidChatIdError';

  constructor(
    /** The id as received, cut to 80 characters (JSON-escaped in the message). */
    readonly chatId: string,
    /** Which rule it broke, e.g. `may only contain letters, digits and . _ ~ : -`. */
    readonly reason: string,
  ) {
    super(`Invalid chat id ${JSON.stringify(chatId)}: ${reason}`);
  }

  static isInstance(error: unknown): error is InvalidChatIdError {
    return RunlightError.hasKind(error, 'invalid-chat-id');
  }
}
