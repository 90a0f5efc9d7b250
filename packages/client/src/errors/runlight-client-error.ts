const MARKER = Symbol.for('runlight.error.RunlightClientError');

/**
 * What went wrong, named so a UI or a log can tell the cases apart:
 * - `malformed-json` — a message's data or a snapshot body is not JSON (e.g. truncated);
 * - `invalid-event` / `invalid-snapshot` — JSON that breaks a protocol schema (`field` names it);
 * - `unknown-event` — an SSE event type this client does not know;
 * - `revision-backwards` — a durable event older than one already received on the same connection;
 * - `run-mismatch` — an event or snapshot of another run;
 * - `http` — a non-2xx answer (`status`); `run-not-found` — 404 for the run;
 * - `content-type` — the events endpoint did not answer `text/event-stream`;
 * - `network` — `fetch` or the body stream failed;
 * - `timeout` — a snapshot load or a control request had no answer within `requestTimeoutMs`
 *   (a control request may still have been recorded: its effect shows on the run's events);
 * - `unauthorized` — the server answered 401 or 403 (`status`): new credentials and `retry()`;
 * - `limit-exceeded` — the stream broke a client limit (`field` names it: `maxEventBytes`,
 *   `maxHeldEvents`); the connection is reset, the last good state kept;
 * - `implausible-revision` — a durable revision far beyond the state (`maxRevisionGap`) or
 *   not a safe integer: the snapshot is reloaded instead of waiting for it;
 * - `invalid-history` — a history page (`…/operations`) that breaks `RunOperationsPageSchema`.
 */
export type RunlightClientErrorKind =
  | 'malformed-json'
  | 'invalid-event'
  | 'invalid-snapshot'
  | 'unknown-event'
  | 'revision-backwards'
  | 'run-mismatch'
  | 'http'
  | 'run-not-found'
  | 'content-type'
  | 'network'
  | 'timeout'
  | 'unauthorized'
  | 'limit-exceeded'
  | 'implausible-revision'
  | 'invalid-history'
  | 'invalid-request';

/**
 * The one error type of the client: set on `state.error` (the last good state stays) and
 * thrown by `fetchSnapshot`. `isInstance` works across copies of the package.
 *
 * @example
 * if (RunlightClientError.isInstance(error) && error.kind === 'run-not-found') showNotFound();
 */
export class RunlightClientError extends Error {
  readonly [MARKER] = true;
  override readonly name = 'RunlightClientError';
  readonly kind: RunlightClientErrorKind;
  /** Dotted path of the offending field, when a schema named one (e.g. `operation.startedAt`). */
  readonly field: string | undefined;
  /** HTTP status, for `http`, `run-not-found` and `unauthorized`. */
  readonly status: number | undefined;
  /** The server's error code of a refused request, e.g. `not_awaiting_approval`. */
  readonly code: string | undefined;

  constructor(
    kind: RunlightClientErrorKind,
    message: string,
    options: { field?: string; status?: number; code?: string; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.kind = kind;
    this.field = options.field;
    this.status = options.status;
    this.code = options.code;
  }

  static isInstance(error: unknown): error is RunlightClientError {
    return typeof error === 'object' && error !== null && MARKER in error;
  }
}
