/** How often a ticking time is re-read; a view changes only when its shown value does. */
export const TICK_MS = 100;

/**
 * One shared wall clock for every ticking time on the page (elapsed times, retry countdowns),
 * whatever binding shows them: a single interval runs while anything listens and stops after
 * the last listener leaves. `now()` is stable between ticks, as `useSyncExternalStore` and
 * memoised getters require of a snapshot.
 *
 * @example
 * const stop = elapsedClock.subscribe(() => render(formatElapsed(shownElapsedMs(since, {}, elapsedClock.now()))));
 */
export class ElapsedClock {
  #now = 0;
  #timer: ReturnType<typeof setInterval> | undefined;
  #readFresh = false;
  readonly #listeners = new Set<() => void>();

  /** The wall clock in ms: the last tick's while ticking, else read once per task. */
  now = (): number => {
    // Idle: read the wall clock, but once per task, so that two reads in one render agree.
    if (this.#timer === undefined && !this.#readFresh) {
      this.#now = Date.now();
      this.#readFresh = true;
      queueMicrotask(() => {
        this.#readFresh = false;
      });
    }
    return this.#now;
  };

  /** Calls `listener` every `TICK_MS` while subscribed; the first listener starts the interval. */
  subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    if (this.#timer === undefined) {
      this.#now = Date.now();
      this.#timer = setInterval(() => {
        this.#now = Date.now();
        for (const each of [...this.#listeners]) each();
      }, TICK_MS);
    }
    return () => {
      this.#listeners.delete(listener);
      if (this.#listeners.size === 0 && this.#timer !== undefined) {
        clearInterval(this.#timer);
        this.#timer = undefined;
      }
    };
  };
}

/** The page's one clock, shared by every binding. */
export const elapsedClock = new ElapsedClock();
