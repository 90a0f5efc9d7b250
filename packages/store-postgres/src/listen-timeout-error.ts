import { RunlightError } from '@runlight/runtime';

/**
 * The bus's LISTEN connection did not answer in time — a liveness probe, or connecting and
 * LISTEN after a loss (a half-open socket, a hung proxy). The bus reports it to `onError`, gives
 * the connection up and listens again on a new one.
 */
export class ListenTimeoutError extends RunlightError {
  readonly kind = 'listen-timeout';
  override readonly name = 'ListenTimeoutError';

  constructor(
    readonly what: string,
    readonly timeoutMs: number,
  ) {
    super(`The bus's LISTEN connection: ${what} took longer than ${timeoutMs} ms`);
  }

  static isInstance(error: unknown): error is ListenTimeoutError {
    return RunlightError.isRunlightError(error) && error.kind === 'listen-timeout';
  }
}
