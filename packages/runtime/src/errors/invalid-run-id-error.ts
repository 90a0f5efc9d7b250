import { RunlightError } from './runlight-error';

/**
 * A run id that breaks the protocol's `RunIdSchema` (1–200 characters of letters, digits and
 * `. _ ~ : -`) reached the store. Every driver gets the same check before it is called, so a
 * database never sees such an id (a `\u0000` would otherwise surface a raw driver error) and
 * the store accepts exactly the ids the HTTP layer routes.
 */
export class InvalidRunIdError extends RunlightError {
  readonly kind = 'invalid-run-id';
  override readonly name = 'InvalidRunIdError';

  constructor(
    /** The id as received, cut to 80 characters (JSON-escaped in the message). */
    readonly runId: string,
    /** Which rule it broke, e.g. `may only contain letters, digits and . _ ~ : -`. */
    readonly reason: string,
  ) {
    super(`Invalid run id ${JSON.stringify(runId)}: ${reason}`);
  }

  static isInstance(error: unknown): error is InvalidRunIdError {
    return RunlightError.hasKind(error, 'invalid-run-id');
  }
}
