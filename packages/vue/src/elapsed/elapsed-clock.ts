/** How often a ticking time is re-read, in ms; what is shown changes only at its resolution. */
export const TICK_MS = 100;

/**
 * One shared wall clock for every ticking time on the page: one interval while anything shows
 * a running time, none otherwise.
 */
class ElapsedClock {
  #timer: ReturnType<typeof setInterval> | undefined;
  readonly #listeners = new Set<(now: number) => void>();

  subscribe = (listener: (now: number) => void): (() => void) => {
    this.#listeners.add(listener);
    if (this.#timer === undefined) {
      this.#timer = setInterval(() => {
        const now = Date.now();
        for (const each of [...this.#listeners]) each(now);
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
