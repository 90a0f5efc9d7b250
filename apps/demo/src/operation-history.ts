import type { RunStore } from '@runlight/client';
import type { RunOperation } from '@runlight/protocol';

/** One `lastOperation` the client held, in the order the states arrived. */
export interface OperationSighting {
  key: string;
  operation: RunOperation;
}

const histories = new WeakMap<RunStore, OperationHistory>();

/**
 * The operation timeline of one client's run store: every distinct `lastOperation` (id and
 * phase) its merged states carried, appended as the states arrive. A snapshot loaded in a
 * fresh client starts from the operation as stored — with its original timestamps.
 *
 * @example
 * const history = OperationHistory.of(client.run(runId));
 * const unsubscribe = history.subscribe(() => console.log(history.getSnapshot().length));
 */
export class OperationHistory {
  readonly #store: RunStore;
  #entries: readonly OperationSighting[] = [];
  #last: RunOperation | null = null;

  static of(store: RunStore): OperationHistory {
    let history = histories.get(store);
    if (history === undefined) {
      history = new OperationHistory(store);
      histories.set(store, history);
    }
    return history;
  }

  private constructor(store: RunStore) {
    this.#store = store;
    this.#observe();
  }

  getSnapshot = (): readonly OperationSighting[] => {
    this.#observe();
    return this.#entries;
  };

  subscribe = (listener: () => void): (() => void) =>
    this.#store.subscribe(() => {
      this.#observe();
      listener();
    });

  #observe(): void {
    const operation = this.#store.getState().run?.lastOperation ?? null;
    if (operation === null || operation === this.#last) return;
    const previous = this.#last;
    this.#last = operation;
    if (previous !== null && previous.id === operation.id && previous.phase === operation.phase) {
      return;
    }
    this.#entries = [...this.#entries, { key: `${operation.id}#${operation.phase}`, operation }];
  }
}
