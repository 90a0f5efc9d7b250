import { watchLeaseExpiry } from '../connection/watch-lease-expiry';
import type { RunState } from '../merge/run-state';
import type { RunStore } from '../run-store';

/** What an observer needs of a run store: `RunStore` has it (tests pass a fake). */
export type ObservedRunStore = Pick<RunStore, 'getState' | 'subscribe' | 'watch'>;

export interface RunObserverOptions<T> {
  /** Picks the slice a view needs, e.g. `selectActivity`. A new function each time is fine. */
  select: (state: RunState) => T;
  /** How two selections compare (default `Object.is`); an equal one keeps the old reference. */
  isEqual?: ((a: T, b: T) => boolean) | undefined;
}

/**
 * Watches one run for a view, the way TanStack's `QueryObserver` watches a query: the
 * framework-free part of every binding (React, Vue, Svelte, the devtools).
 *
 * - **Selection with equality.** `getSnapshot()` runs `select` once per store state (and once
 *   per new `select` function), and a selection `isEqual` to the last one keeps the last
 *   reference — so it returns the same value while nothing the view shows changed.
 * - **Stable `subscribe` / `getSnapshot`.** Both are bound once per observer; `setOptions`
 *   swaps the selector without touching the subscription, so an inline selector passed on
 *   every render never subscribes again. Listeners are told only when the selection changed.
 * - **Lease expiry.** While subscribed, a timer at the moment the owner's lease expires selects
 *   again (the activity turns `stalled` with no event): one store subscription, no polling.
 * - **Active or passive.** Subscribing opens the run's live connection (`store.subscribe`) —
 *   unless the observer is `passive`: then it only watches (`store.watch`) what the app's own
 *   subscribers make the store receive, as developer tools must.
 *
 * @example
 * const observer = new RunObserver(client.run('run-1'), { select: selectActivity, isEqual: activityEquals });
 * const stop = observer.subscribe(() => render(observer.getSnapshot()));
 */
export class RunObserver<T> {
  readonly store: ObservedRunStore;
  readonly passive: boolean;
  #select!: (state: RunState) => T;
  #isEqual!: (a: T, b: T) => boolean;
  #memo: { state: RunState; epoch: number; select: (state: RunState) => T; selection: T } | null =
    null;
  /** Bumped when a lease expires: the same state may select differently from then on. */
  #epoch = 0;
  readonly #listeners = new Set<() => void>();
  #detach: (() => void) | null = null;

  constructor(store: ObservedRunStore, options: RunObserverOptions<T> & { passive?: boolean }) {
    this.store = store;
    this.passive = options.passive ?? false;
    this.setOptions(options);
  }

  /**
   * Takes the latest selector and equality (safe during a render: it notifies nobody and
   * subscribes nothing); the next `getSnapshot` selects with them.
   */
  setOptions(options: RunObserverOptions<T>): void {
    this.#select = options.select;
    this.#isEqual = options.isEqual ?? Object.is;
  }

  /** The current selection: the same reference while nothing it shows changed. */
  getSnapshot = (): T => {
    const state = this.store.getState();
    const memo = this.#memo;
    if (
      memo !== null &&
      memo.state === state &&
      memo.epoch === this.#epoch &&
      memo.select === this.#select
    ) {
      return memo.selection;
    }
    const next = this.#select(state);
    const selection = memo !== null && this.#isEqual(memo.selection, next) ? memo.selection : next;
    this.#memo = { state, epoch: this.#epoch, select: this.#select, selection };
    return selection;
  };

  /**
   * Calls `listener` when the selection changed. The first listener attaches to the store (and
   * opens its connection unless passive); the store is released after the last one leaves.
   */
  subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    if (this.#detach === null) this.#detach = this.#attach();
    return () => {
      if (!this.#listeners.delete(listener) || this.#listeners.size > 0) return;
      this.#detach?.();
      this.#detach = null;
    };
  };

  #attach(): () => void {
    const { store } = this;
    // One subscription to the store: the lease watch hears of changes through it (it
    // subscribes once, with the function that reschedules its timer).
    let reschedule = () => {};
    const unsubscribe = (this.passive ? store.watch : store.subscribe)(() => {
      reschedule();
      this.#changed();
    });
    const stopLease = watchLeaseExpiry(
      {
        getState: store.getState,
        subscribe: (listener) => {
          reschedule = listener;
          return () => {};
        },
      },
      () => {
        this.#epoch++;
        this.#changed();
      },
    );
    // The baseline listeners are told of changes from: what a reader sees now.
    this.getSnapshot();
    return () => {
      stopLease();
      unsubscribe();
    };
  }

  #changed(): void {
    const before = this.#memo?.selection;
    if (Object.is(before, this.getSnapshot())) return;
    for (const listener of [...this.#listeners]) listener();
  }
}
