/**
 * Waits `ms`, or rejects with the signal's reason as soon as it aborts — what a scenario's tool
 * does to look slow and still honour a cancel.
 *
 * @example
 * await abortableSleep(700, signal);
 */
export const abortableSleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
