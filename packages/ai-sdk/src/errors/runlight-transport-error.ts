const MARKER = Symbol.for('runlight.error.RunlightTransportError');

/**
 * What went wrong between the chat and the application's routes:
 * - `start` — the start route failed (`status`) or answered no valid `{ runId }`;
 * - `control` — a cancel or approvals request answered non-2xx (`status`);
 * - `network` — `fetch` itself failed.
 */
export type RunlightTransportErrorKind = 'start' | 'control' | 'network';

/**
 * The error of `@runlight/ai-sdk`'s chat transport; `useChat` shows it as its `error`.
 * `isInstance` works across copies of the package.
 *
 * @example
 * if (RunlightTransportError.isInstance(chat.error) && chat.error.kind === 'start') retry();
 */
export class RunlightTransportError extends Error {
  readonly [MARKER] = true;
  override readonly name = 'RunlightTransportError';
  readonly kind: RunlightTransportErrorKind;
  /** HTTP status, when a route answered. */
  readonly status: number | undefined;

  constructor(
    kind: RunlightTransportErrorKind,
    message: string,
    options: { status?: number; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.kind = kind;
    this.status = options.status;
  }

  static isInstance(error: unknown): error is RunlightTransportError {
    return typeof error === 'object' && error !== null && MARKER in error;
  }
}
