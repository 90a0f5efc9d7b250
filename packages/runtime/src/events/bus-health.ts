import type { RunEventSourceHealth } from './event-hub';

/**
 * A bus connection's `health` and its listeners: `live`, or `deaf` from a loss until the
 * transport hears again. A listener that throws is isolated (its error goes to `onError`).
 *
 * @example
 * const health = new BusHealth(onError);
 * connection.onLoss(() => health.set('deaf'));
 * connection.onReply(() => { if (health.set('live')) catchUp(); });
 */
export class BusHealth {
  #health: RunEventSourceHealth = 'live';
  readonly #listeners = new Set<(health: RunEventSourceHealth) => void>();
  readonly #onError: (error: unknown) => void;

  constructor(onError: (error: unknown) => void) {
    this.#onError = onError;
  }

  get health(): RunEventSourceHealth {
    return this.#health;
  }

  /** Hears each change of `health`; returns the unsubscribe. */
  onChange(listener: (health: RunEventSourceHealth) => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /** Moves to `health`; returns whether it changed (the listeners heard it). */
  set(health: RunEventSourceHealth): boolean {
    if (this.#health === health) return false;
    this.#health = health;
    for (const listener of [...this.#listeners]) {
      try {
        listener(health);
      } catch (error) {
        this.#onError(error);
      }
    }
    return true;
  }

  /** Forgets every listener (the bus is closed). */
  clear(): void {
    this.#listeners.clear();
  }
}
