import { RunlightError } from '../errors/runlight-error';

/**
 * What a log receives of an error by default: what an operator acts on, never what a provider
 * call carried. An AI SDK `APICallError` holds the request body (`requestBodyValues`: the
 * system prompt and every message), the response body and headers, and its `message` is the
 * provider's text; a `RetryError` holds every attempt's; a pino-style serialiser writes all of
 * it. None of that survives here, whatever the error type.
 */
export interface RedactedError {
  /**
   * What failed: a Runlight error's `kind` (`store-conflict`, `fencing`, …), else the error's
   * class name (`AI_APICallError`, `AI_RetryError`, `TypeError`; `Error` when the name is not
   * a plain identifier).
   */
  kind: string;
  /** The provider's HTTP status (`statusCode`), when the error has one. */
  status?: number;
  /** Whether the provider called it retryable (`isRetryable`). */
  retryable?: boolean;
  /** A system error code (`ECONNRESET`, a PostgreSQL SQLSTATE such as `57P01`). */
  code?: string;
  /** Runlight's own errors only: their text names ids and rules, never input. */
  message?: string;
  /** Why a retry gave up (`RetryError.reason`: `maxRetriesExceeded`, `errorNotRetryable`). */
  reason?: string;
  /** How many attempts a `RetryError` made. */
  attempts?: number;
  /** The last attempt's error of a `RetryError`, or the `cause`, redacted the same way. */
  cause?: RedactedError;
}

const NAME = /^[A-Za-z_$][\w$.:-]{0,63}$/;
const CODE = /^[A-Za-z0-9_]{1,32}$/;
const REASON = /^[A-Za-z]{1,40}$/;

/**
 * The error as a log may hold it by default (`RedactedError`): kind, status, retryable, a
 * system code, and Runlight's own message — no provider text, prompt, message, tool input or
 * output, request or response body or header. `createAgentRuntime({ logRawErrors: true })`
 * (and the HTTP handlers' option of the same name) pass the raw error instead.
 *
 * @example
 * redactError(apiCallError); // { kind: 'AI_APICallError', status: 401, retryable: false }
 */
export function redactError(error: unknown, depth = 0): RedactedError {
  if (typeof error !== 'object' || error === null) return { kind: typeof error };
  const source = error as Record<string, unknown>;
  const runlight = RunlightError.isRunlightError(error);
  const name = typeof source.name === 'string' && NAME.test(source.name) ? source.name : 'Error';
  const redacted: RedactedError = {
    kind: runlight && typeof source.kind === 'string' ? source.kind : name,
  };
  const status = source.statusCode ?? source.status;
  if (typeof status === 'number' && Number.isInteger(status)) redacted.status = status;
  if (typeof source.isRetryable === 'boolean') redacted.retryable = source.isRetryable;
  if (typeof source.code === 'string' && CODE.test(source.code)) redacted.code = source.code;
  if (runlight && typeof source.message === 'string') redacted.message = source.message;
  if (typeof source.reason === 'string' && REASON.test(source.reason)) {
    redacted.reason = source.reason;
  }
  if (Array.isArray(source.errors)) redacted.attempts = source.errors.length;
  const inner = source.lastError ?? source.cause;
  if (inner !== undefined && depth < 3) redacted.cause = redactError(inner, depth + 1);
  return redacted;
}

/**
 * `sink` given redacted errors, or raw ones when `raw` is set (the documented opt-in). A sink
 * that throws is ignored: a log must not change what it logs about.
 *
 * @example
 * const onError = redactingSink(options.onError, options.logRawErrors);
 */
export function redactingSink(
  sink: ((error: unknown) => void) | undefined,
  raw: boolean | undefined,
): (error: unknown) => void {
  if (!sink) return () => {};
  if (raw === true) return sink;
  return (error) => sink(redactError(error));
}

/** An entry of a log (`RuntimeLogEntry`): its `error` is what gets redacted. */
interface ErrorEntry {
  error?: unknown;
}

/**
 * `log` with each entry's `error` redacted (`redactError`) unless `raw` is set; an entry
 * without an error passes unchanged.
 *
 * @example
 * const log = redactingLog(options.onLog ?? defaultLog, options.logRawErrors);
 */
export function redactingLog<Entry extends ErrorEntry>(
  log: (entry: Entry) => void,
  raw: boolean | undefined,
): (entry: Entry) => void {
  if (raw === true) return log;
  return (entry) =>
    log(entry.error === undefined ? entry : { ...entry, error: redactError(entry.error) });
}
