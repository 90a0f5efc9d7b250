import type { RunStore } from '@runlight/client';
import { type RunOperation, safeParseRunEvent } from '@runlight/protocol';
import type { WireLog } from './wire-log';

/** One `lastOperation` the client held, in the order it arrived. */
export interface OperationSighting {
  key: string;
  operation: RunOperation;
}

const histories = new WeakMap<RunStore, OperationHistory>();

/**
 * The operation timeline of one client's run: every distinct `lastOperation` (id and phase)
 * in arrival order — from the merged states (a snapshot shows the operation as stored, with
 * its original timestamps) and from the `run-operation` events the client received. The
 * events matter because the store notifies once per burst: a compaction that ends and a model
 * request that starts in the same burst would otherwise show only the latter.
 *
 * @example
 * const history = OperationHistory.of(client.run(runId), wireLog);
 * const unsubscribe = history.subscribe(() => console.log(history.getSnapshot().length));
 */
export class OperationHistory {
  readonly #store: RunStore;
  readonly #seen = new Set<string>();
  readonly #listeners = new Set<() => void>();
  #entries: readonly OperationSighting[] = [];
  #last: RunOperation | null = null;

  static of(store: RunStore, wireLog: WireLog): OperationHistory {
    let history = histories.get(store);
    if (history === undefined) {
      history = new OperationHistory(store, wireLog);
      histories.set(store, history);
    }
    return history;
  }

  private constructor(store: RunStore, wireLog: WireLog) {
    this.#store = store;
    this.#observeState();
    wireLog.onMessage((entry) => {
      if (entry.event !== 'run-operation') return;
      let data: unknown;
      try {
        data = JSON.parse(entry.data);
      } catch {
        return;
      }
      // Only what the client itself would accept: a valid event of this run.
      const parsed = safeParseRunEvent(data);
      if (!parsed.success || parsed.data.type !== 'run-operation') return;
      if (parsed.data.runId !== store.runId) return;
      if (this.#add(parsed.data.operation)) this.#notify();
    });
  }

  getSnapshot = (): readonly OperationSighting[] => this.#entries;

  subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    const unsubscribe = this.#store.subscribe(() => {
      if (this.#observeState()) this.#notify();
    });
    return () => {
      this.#listeners.delete(listener);
      unsubscribe();
    };
  };

  #observeState(): boolean {
    const operation = this.#store.getState().run?.lastOperation ?? null;
    if (operation === null || operation === this.#last) return false;
    this.#last = operation;
    return this.#add(operation);
  }

  #add(operation: RunOperation): boolean {
    const key = `${operation.id}#${operation.phase}`;
    if (this.#seen.has(key)) return false;
    this.#seen.add(key);
    this.#entries = [...this.#entries, { key, operation }];
    return true;
  }

  #notify(): void {
    for (const listener of [...this.#listeners]) listener();
  }
}
