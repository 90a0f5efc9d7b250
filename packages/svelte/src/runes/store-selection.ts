import { RunObserver, type RunState, type RunStore } from '@runlight/client';
import { createSubscriber } from 'svelte/reactivity';

/**
 * A selection of a run store's state over the client's `RunObserver` (selection with equality,
 * the lease-expiry re-select), readable in Svelte's reactive contexts. The observer is
 * subscribed while some effect (a template, `$effect`, `$derived` read by one) reads `current`,
 * and released when the last one goes — so the run's live connection opens with the first
 * component that shows it and closes after the last; readers re-run only when the selection
 * changed. Read outside an effect (the server render), it only reads the state: no network.
 */
export class StoreSelection<T> {
  readonly #observer: RunObserver<T>;
  readonly #subscribe: () => void;

  constructor(store: RunStore, select: (state: RunState) => T, isEqual?: (a: T, b: T) => boolean) {
    this.#observer = new RunObserver(store, { select, isEqual });
    this.#subscribe = createSubscriber((update) => this.#observer.subscribe(update));
  }

  get current(): T {
    this.#subscribe();
    return this.#observer.getSnapshot();
  }
}
