import { RunlightError } from './runlight-error';

/**
 * The store kept failing (a dropped connection, a timeout) after the runtime's bounded
 * retries of one owned mutation. The run ends `storage_unavailable` once the store answers
 * again; the driver's own error is `cause` (and goes to the server log only).
 */
export class StoreUnavailableError extends RunlightError {
  readonly kind = 'store-unavailable';
  override readonly name = 'StoreUnavailableError';

  constructor(
    readonly runId: string,
    readonly attempts: number,
    options?: { cause?: unknown },
  ) {
    super(`Run ${runId}: the store failed ${attempts} times in a row`, options);
  }

  static isInstance(error: unknown): error is StoreUnavailableError {
    return RunlightError.hasKind(error, 'store-unavailable');
  }
}
