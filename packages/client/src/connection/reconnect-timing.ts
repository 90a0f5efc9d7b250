import type { RunStoreContext } from '../run-store-context';

/** Exponential backoff with equal jitter: half the step fixed, half random. */
export function backoffDelay(context: RunStoreContext, attempt: number): number {
  if (attempt <= 0) return 0;
  const { initialDelayMs, maxDelayMs } = context.reconnect;
  const step = Math.min(maxDelayMs, initialDelayMs * 2 ** Math.max(0, attempt - 1));
  return step / 2 + context.random() * (step / 2);
}

/**
 * Waits `ms`, less when the returned wake function is called (`retry()`), the browser is back
 * online, or the signal aborts. `onWake` receives the wake function while the pause lasts
 * (and `null` after).
 */
export function pauseFor(
  ms: number,
  signal: AbortSignal,
  onWake: (wake: (() => void) | null) => void,
): Promise<void> {
  return new Promise((resolve) => {
    const target = globalThis as {
      addEventListener?: (type: string, listener: () => void) => void;
      removeEventListener?: (type: string, listener: () => void) => void;
    };
    const done = () => {
      clearTimeout(timer);
      onWake(null);
      signal.removeEventListener('abort', done);
      target.removeEventListener?.('online', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    onWake(done);
    signal.addEventListener('abort', done);
    target.addEventListener?.('online', done);
  });
}
