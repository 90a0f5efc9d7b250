import { APICallError } from '@ai-sdk/provider';
import type { ModelFailureReason } from '@runlight/protocol';
import { RetryError } from 'ai';

const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);
const TIMEOUT_CODES = new Set([
  'ETIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** The error and its causes, outermost first (bounded: a cause chain may be cyclic). */
function chain(error: unknown): unknown[] {
  const errors: unknown[] = [];
  let current: unknown = RetryError.isInstance(error) ? (error.lastError ?? error) : error;
  while (current !== undefined && current !== null && errors.length < 6) {
    errors.push(current);
    current = typeof current === 'object' ? (current as { cause?: unknown }).cause : undefined;
  }
  return errors;
}

const field = (error: unknown, key: string): unknown =>
  typeof error === 'object' && error !== null ? (error as Record<string, unknown>)[key] : undefined;

/**
 * Why a model request attempt failed, from status codes, error classes and error codes — never
 * from provider text: 429 `rate_limited`, 5xx `server_error`, 408 or a timeout `timeout`, a
 * reset / refused / unresolved connection or a failed fetch `network`, anything else `other`.
 * A `RetryError` (exhausted retries) is classified by its last error.
 *
 * @example
 * modelFailureReason(new APICallError({ message: '…', url, requestBodyValues: {}, statusCode: 429 })); // 'rate_limited'
 */
export function modelFailureReason(error: unknown): ModelFailureReason {
  for (const inner of chain(error)) {
    const status = APICallError.isInstance(inner) ? inner.statusCode : field(inner, 'statusCode');
    if (typeof status === 'number') {
      if (status === 429) return 'rate_limited';
      if (status >= 500) return 'server_error';
      if (status === 408) return 'timeout';
      return 'other';
    }
    const name = field(inner, 'name');
    if (name === 'TimeoutError') return 'timeout';
    const code = field(inner, 'code');
    if (typeof code === 'string') {
      if (TIMEOUT_CODES.has(code)) return 'timeout';
      if (NETWORK_CODES.has(code)) return 'network';
    }
    // undici's fetch rejects with this fixed text (not provider text) and the socket error as cause.
    if (inner instanceof TypeError && inner.message === 'fetch failed') return 'network';
  }
  return 'other';
}

/**
 * True when the AI SDK will try `error` again: a retryable API (or gateway) error, not an
 * abort, with attempts left under `maxRetries` (attempt `k` of `maxRetries + 1`).
 *
 * @example
 * sdkWillRetry(error503, 1, 2); // true
 */
export function sdkWillRetry(error: unknown, attempt: number, maxRetries: number): boolean {
  if (attempt > maxRetries) return false;
  const name = field(error, 'name');
  if (name === 'AbortError' || name === 'ResponseAborted' || name === 'TimeoutError') return false;
  return error instanceof Error && field(error, 'isRetryable') === true;
}

/** The AI SDK's default backoff: 2 s before the first retry, doubled before each next one. */
const INITIAL_DELAY_MS = 2_000;
const BACKOFF_FACTOR = 2;
/** The SDK honours a provider's retry header below this (or below the backoff). */
const HEADER_LIMIT_MS = 60_000;

/**
 * How long the AI SDK waits before retrying failed attempt `attempt` (one-based): its
 * exponential backoff (2 s, 4 s, 8 s …), or the provider's `retry-after-ms` / `retry-after`
 * (seconds or an HTTP date) when that is between 0 and 60 s (or below the backoff) — the rule
 * of `retryWithExponentialBackoffRespectingRetryHeaders` in `ai` 7, applied to the same error.
 *
 * @example
 * sdkRetryDelayMs(error429WithRetryAfterMs1500, 1); // 1500
 * sdkRetryDelayMs(error503, 2); // 4000
 */
export function sdkRetryDelayMs(error: unknown, attempt: number, now = Date.now()): number {
  const backoff = INITIAL_DELAY_MS * BACKOFF_FACTOR ** (attempt - 1);
  const headers = APICallError.isInstance(error)
    ? error.responseHeaders
    : APICallError.isInstance(field(error, 'cause'))
      ? (field(error, 'cause') as APICallError).responseHeaders
      : undefined;
  if (headers === undefined) return backoff;
  let ms: number | undefined;
  const retryAfterMs = headers['retry-after-ms'];
  if (retryAfterMs) {
    const parsed = Number.parseFloat(retryAfterMs);
    if (!Number.isNaN(parsed)) ms = parsed;
  }
  const retryAfter = headers['retry-after'];
  if (retryAfter && ms === undefined) {
    const seconds = Number.parseFloat(retryAfter);
    ms = Number.isNaN(seconds) ? Date.parse(retryAfter) - now : seconds * 1000;
  }
  if (ms !== undefined && !Number.isNaN(ms) && ms >= 0 && (ms < HEADER_LIMIT_MS || ms < backoff)) {
    return ms;
  }
  return backoff;
}
