/** How often a ticking elapsed time is re-read; renders happen only when its shown value changes. */
export const TICK_MS = 100;

/**
 * One shared wall clock for every ticking elapsed time: a single interval runs while any
 * component shows a running time and stops after the last one unmounts. `now()` is stable
 * between ticks, as `useSyncExternalStore` requires of a snapshot.
 */
class ElapsedClock {
  #now = 0;
  #timer: ReturnType<typeof setInterval> | undefined;
  #readFresh = false;
  readonly #listeners = new Set<() => void>();

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

export const elapsedClock = new ElapsedClock();
