import type { ProtocolIssue } from '@runlight/protocol';
import { RunlightError } from './runlight-error';

/**
 * An application callback (e.g. `compact`) returned a value the runtime cannot use. The
 * runtime refuses to guess: the operation fails and the run ends with the callback's code.
 */
export class CallbackResultError extends RunlightError {
  readonly kind = 'callback-result';
  override readonly name = 'CallbackResultError';

  constructor(
    readonly callback: 'compact',
    readonly issues: readonly ProtocolIssue[],
  ) {
    super(
      `The ${callback} callback returned an invalid result: ${issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ')}`,
    );
  }

  static isInstance(error: unknown): error is CallbackResultError {
    return RunlightError.hasKind(error, 'callback-result');
  }
}
