import { RunlightError } from '../../errors/runlight-error';

/**
 * A resume cursor (`Last-Event-ID` or `?after=`) is not one this server ever sends. The SSE
 * handler answers it with `400 bad_cursor`; the client should reload the snapshot and resume
 * from its revision.
 */
export class BadCursorError extends RunlightError {
  readonly kind = 'bad-cursor';
  override readonly name = 'BadCursorError';

  constructor(
    /** The cursor as received (cut to 80 characters). */
    readonly cursor: string,
    /** Which rule it broke, e.g. `the live delta base must not be newer than the revision`. */
    readonly reason: string,
  ) {
    super(`Malformed cursor "${cursor}": ${reason}`);
  }

  static isInstance(error: unknown): error is BadCursorError {
    return RunlightError.hasKind(error, 'bad-cursor');
  }
}
