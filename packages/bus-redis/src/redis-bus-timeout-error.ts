import { RunlightError } from '@runlight/runtime';

/**
 * The bus's reading connection did not answer in time — a blocking read past its deadline, or
 * connecting (a hung server, a half-open socket, a stalled proxy). The bus gives the connection
 * up and reads again on a new one; the error counts toward an outage (`RedisBusOutageError`,
 * whose `cause` it is when it came first). Also reported alone when `close` could not send
 * what was published in time.
 */
export class RedisBusTimeoutError extends RunlightError {
  readonly kind = 'redis-bus-timeout';
  override readonly name = 'RedisBusTimeoutError';

  constructor(
    readonly what: string,
    readonly timeoutMs: number,
  ) {
    super(`The Redis event bus: ${what} took longer than ${timeoutMs} ms`);
  }

  static isInstance(error: unknown): error is RedisBusTimeoutError {
    return RunlightError.isRunlightError(error) && error.kind === 'redis-bus-timeout';
  }
}
