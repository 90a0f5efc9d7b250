/**
 * The timers of a bus connection — backoff sleeps, reply deadlines — all woken at once by
 * `wakeAll` (the bus is closing), so no loop or wait outlives `close`.
 *
 * @example
 * const timers = new BusTimers({ unref: true });
 * const reply = await timers.within(read(), 10_000, () => new TimeoutError('a read', 10_000));
 * await timers.sleep(backoffMs); // resolves at once on timers.wakeAll()
 */
export class BusTimers {
  readonly #wakers = new Set<() => void>();
  readonly #unref: boolean;

  /** `unref`: a pending timer never keeps the process alive. */
  constructor(options: { unref?: boolean } = {}) {
    this.#unref = options.unref ?? false;
  }

  /** Calls `fire` after `ms`, or at once on `wakeAll`; returns the cancel. */
  timer(ms: number, fire: () => void): () => void {
    const wake = () => {
      clearTimeout(timer);
      this.#wakers.delete(wake);
      fire();
    };
    const timer = setTimeout(wake, ms);
    if (this.#unref) (timer as { unref?: () => void }).unref?.();
    this.#wakers.add(wake);
    return () => {
      clearTimeout(timer);
      this.#wakers.delete(wake);
    };
  }

  /** Resolves after `ms`, or at once on `wakeAll`. */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.timer(ms, resolve);
    });
  }

  /**
   * `work`, or the error `timedOut` makes after `ms` (at once on `wakeAll`); `work` may go on.
   */
  within<T>(work: Promise<T>, ms: number, timedOut: () => Error): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const stop = this.timer(ms, () => reject(timedOut()));
      work.then(
        (value) => {
          stop();
          resolve(value);
        },
        (error: unknown) => {
          stop();
          reject(error);
        },
      );
    });
  }

  /** Fires every pending timer now (the bus is closing). */
  wakeAll(): void {
    for (const wake of [...this.#wakers]) wake();
  }
}
