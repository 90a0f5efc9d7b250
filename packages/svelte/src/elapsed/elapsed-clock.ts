import { elapsedClock as clock } from '@runlight/client';
import { createSubscriber } from 'svelte/reactivity';

/**
 * The client's one clock (`elapsedClock`: one interval while anything ticks, whatever binding
 * shows it) as Svelte reads it: `now()` read in an effect ticks that effect.
 */
class SvelteElapsedClock {
  readonly #subscribe = createSubscriber((update) => clock.subscribe(update));

  /** The wall clock in ms; read in an effect, it ticks that effect. */
  now(): number {
    this.#subscribe();
    return clock.now();
  }
}

export const elapsedClock = new SvelteElapsedClock();
