import { type RunState, type RunStore, watchLeaseExpiry } from '@runlight/client';
import { createSubscriber } from 'svelte/reactivity';

/**
 * A memoised selection of a run store's state, readable in Svelte's reactive contexts. The
 * store is subscribed while some effect (a template, `$effect`, `$derived` read by one) reads
 * `current`, and released when the last one goes — so the run's live connection opens with
 * the first component that shows it and closes after the last. Read outside an effect (the
 * server render), it only reads the state: no subscription, no network.
 *
 * The selector runs once per store state; a selection `isEqual` to the previous one keeps its
 * reference, and readers re-run only when the selection changed. A selection may depend on the time too (the activity turns `stalled` when the
 * owner's lease expires while nothing arrives): a timer at that moment selects again once.
 */
export class StoreSelection<T> {
  readonly #store: RunStore;
  readonly #select: (state: RunState) => T;
  readonly #isEqual: (a: T, b: T) => boolean;
  readonly #subscribe: () => void;
  #memo: { state: RunState; epoch: number; selection: T } | undefined;
  #epoch = 0;

  constructor(store: RunStore, select: (state: RunState) => T, isEqual: (a: T, b: T) => boolean) {
    this.#store = store;
    this.#select = select;
    this.#isEqual = isEqual;
    this.#subscribe = createSubscriber((update) => {
      // Readers are told only when the selection changed, so an effect that reads the activity
      // does not re-run on every text delta.
      const changed = () => {
        const before = this.#memo?.selection;
        if (!Object.is(before, this.#read())) update();
      };
      const unsubscribe = store.subscribe(changed);
      const stopWatching = watchLeaseExpiry(store, () => {
        this.#epoch++;
        changed();
      });
      return () => {
        stopWatching();
        unsubscribe();
      };
    });
  }

  get current(): T {
    this.#subscribe();
    return this.#read();
  }

  #read(): T {
    const state = this.#store.getState();
    const memo = this.#memo;
    if (memo !== undefined && memo.state === state && memo.epoch === this.#epoch) {
      return memo.selection;
    }
    const next = this.#select(state);
    const selection =
      memo !== undefined && this.#isEqual(memo.selection, next) ? memo.selection : next;
    this.#memo = { state, epoch: this.#epoch, selection };
    return selection;
  }
}
