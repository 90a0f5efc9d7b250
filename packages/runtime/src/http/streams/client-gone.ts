/** The reason `RunEventStream` ends a stream with when its request's signal aborts. */
export const CLIENT_GONE_MESSAGE = 'The client went away';

/**
 * True when `error` only says the client disconnected: the request's signal aborted, or an
 * error carrying the stream's client-gone message or an `AbortError`. A disconnect is an
 * ordinary end of a request, so it never reaches the handlers' `onError`.
 *
 * @example
 * if (!isClientGone(error, request.signal)) onError(error);
 */
export function isClientGone(error: unknown, signal?: AbortSignal | null): boolean {
  if (signal?.aborted) return true;
  if (!(error instanceof Error)) return false;
  return error.name === 'AbortError' || error.message === CLIENT_GONE_MESSAGE;
}
