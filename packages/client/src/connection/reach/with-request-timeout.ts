import { RunlightClientError } from '../../errors/runlight-client-error';

/**
 * Runs a request with a deadline: after `timeoutMs` with no answer its signal aborts and the
 * promise rejects with a `timeout` `RunlightClientError` — even when the request ignores its
 * signal (a host's loader). An abort of `signal` (the caller leaving) is passed on as it is.
 * A request is never left hanging silently behind the browser's connection limit.
 *
 * @example
 * await withRequestTimeout((signal) => fetch(url, { signal }), { timeoutMs: 15_000, what: 'Loading run-1' });
 */
export function withRequestTimeout<T>(
  request: (signal: AbortSignal) => Promise<T>,
  options: { timeoutMs: number; what: string; signal?: AbortSignal | undefined },
): Promise<T> {
  const controller = new AbortController();
  const outer = options.signal;
  const onAbort = () => controller.abort(outer?.reason);
  if (outer?.aborted) onAbort();
  else outer?.addEventListener('abort', onAbort);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      const error = new RunlightClientError(
        'timeout',
        `${options.what} had no answer in ${options.timeoutMs} ms`,
      );
      controller.abort(error);
      reject(error);
    }, options.timeoutMs);
  });
  // The losing side of the race must not surface as an unhandled rejection.
  timedOut.catch(() => {});
  const answered = request(controller.signal);
  return Promise.race([answered, timedOut]).finally(() => {
    clearTimeout(timer);
    outer?.removeEventListener('abort', onAbort);
    answered.catch(() => {});
  });
}
