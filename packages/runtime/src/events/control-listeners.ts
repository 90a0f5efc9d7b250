/**
 * Who in this process hears that another process recorded a control request (a bus's
 * `onControlRequest`). A listener that throws is isolated (its error goes to `onError`).
 *
 * @example
 * const control = new ControlListeners(onError);
 * bus.onControlRequest = (listener) => control.add(listener);
 * transport.onControl((runId) => control.notify(runId));
 */
export class ControlListeners {
  readonly #listeners = new Set<(runId: string) => void>();
  readonly #onError: (error: unknown) => void;

  constructor(onError: (error: unknown) => void) {
    this.#onError = onError;
  }

  /** Returns the unsubscribe. */
  add(listener: (runId: string) => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /** Tells every listener, in the order they were added. */
  notify(runId: string): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(runId);
      } catch (error) {
        this.#onError(error);
      }
    }
  }
}
