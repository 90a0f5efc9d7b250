import type { ProtocolIssue } from '@runlight/protocol';
import { RunlightError } from './runlight-error';

/**
 * A record or event the driver returned does not parse with the protocol schema. The store
 * refuses to build on it, so nothing already stored is overwritten.
 */
export class StoreRecordError extends RunlightError {
  readonly kind = 'store-record';
  override readonly name = 'StoreRecordError';

  constructor(
    readonly runId: string,
    readonly what:
      | 'run record'
      | 'event'
      | 'assistant message'
      | 'expired run'
      | 'control request'
      | 'run input'
      | 'clock reading',
    readonly issues: readonly ProtocolIssue[],
  ) {
    super(
      `Run ${runId}: the stored ${what} is invalid: ${issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ')}`,
    );
  }

  static isInstance(error: unknown): error is StoreRecordError {
    return RunlightError.hasKind(error, 'store-record');
  }
}
