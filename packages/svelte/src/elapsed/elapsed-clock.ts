import { createSubscriber } from 'svelte/reactivity';

/** How often a ticking time is re-read; the DOM changes only when its shown text does. */
export const TICK_MS = 100;

/**
 * One shared wall clock for every ticking time: a single interval runs while any effect reads
 * a running time, and stops after the last one is gone.
 */
class ElapsedClock {
  #now = 0;
  #ticking = false;
  readonly #subscribe = createSubscriber((update) => {
    this.#ticking = true;
    this.#now = Date.now();
    const timer = setInterval(() => {
      this.#now = Date.now();
      update();
    }, TICK_MS);
    return () => {
      this.#ticking = false;
      clearInterval(timer);
    };
  });

  /** The wall clock in ms; read in an effect, it ticks that effect. */
  now(): number {
    this.#subscribe();
    return this.#ticking ? this.#now : Date.now();
  }
}

export const elapsedClock = new ElapsedClock();
