import { type DurableRunEvent, safeParseRunOperationsPage } from '@runlight/protocol';
import { httpErrorKind } from '../connection/fetch-snapshot';
import { RunlightClientError } from '../errors/runlight-client-error';
import type { RunStore } from '../run-store';
import {
  initialHistoryState,
  mergeHistoryPage,
  mergeLiveEvent,
  nextHistoryAfter,
  type RunHistoryState,
} from './run-history-state';

/** What a `RunHistory` needs from its client. */
export interface RunHistoryContext {
  baseUrl: string;
  fetch: typeof globalThis.fetch;
  /**
   * The client's headers and credentials, asked before every page (as for snapshots and
   * streams): the history route sits behind the same `authorize` as the other routes.
   */
  requestInit?: () => Promise<RequestInit>;
  /** Operations per page (the server caps it at 1000). Default 200. */
  pageSize?: number;
}

/**
 * The operation history of one run, loaded once on demand and kept merged with the live
 * `run-operation` events of the run's store (SPEC.md "History"): no duplicates, in revision
 * order, after reloads, resets and reconnects.
 *
 * Nothing happens until the first subscriber (a status indicator never pays for it). Then it
 * follows the store's durable events, reads `GET …/runs/:id/operations` pages from the first
 * revision it lacks until it covers the store's revision, and reads again whenever the store
 * jumps past what it knows (a reset or gap reload skips events).
 *
 * @example
 * const history = runHistoryOf(client, 'run-1');
 * const unsubscribe = history.subscribe(() => draw(history.getState().operations));
 */
export class RunHistory {
  readonly runId: string;
  readonly #store: RunStore;
  readonly #context: RunHistoryContext;
  #state: RunHistoryState;
  readonly #listeners = new Set<() => void>();
  #detach: (() => void) | null = null;
  #reading: Promise<void> | null = null;
  #notifyScheduled = false;

  constructor(store: RunStore, context: RunHistoryContext) {
    this.runId = store.runId;
    this.#store = store;
    this.#context = context;
    this.#state = initialHistoryState(store.runId);
  }

  getState = (): RunHistoryState => this.#state;

  subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    if (this.#detach === null) this.#attach();
    return () => {
      this.#listeners.delete(listener);
      if (this.#listeners.size > 0) return;
      // A tick later: StrictMode unsubscribes and subscribes again synchronously.
      setTimeout(() => {
        if (this.#listeners.size === 0 && this.#detach !== null) {
          this.#detach();
          this.#detach = null;
        }
      }, 0);
    };
  };

  /**
   * Reads the pages the history lacks for the store's revision; resolves when merged. After an
   * error (a 401 before signing in again, a network failure) this is the way to read again —
   * `client.retry()` calls it for every history in error.
   */
  load(): Promise<void> {
    if (this.#reading !== null) return this.#reading;
    const reading = this.#read().finally(() => {
      this.#reading = null;
    });
    this.#reading = reading;
    return reading;
  }

  #attach(): void {
    const offEvents = this.#store.observeDurableEvents((event: DurableRunEvent) =>
      this.#commit(mergeLiveEvent(this.#state, event)),
    );
    const offStore = this.#store.subscribe(() => this.#catchUp());
    this.#detach = () => {
      offEvents();
      offStore();
    };
    this.#catchUp();
  }

  /** Reads when the store holds revisions the history does not know. */
  #catchUp(): void {
    const { revision, run } = this.#store.getState();
    if (run === null || this.#reading !== null) return;
    if (this.#state.status === 'error') return; // reloaded by `load()`, not in a loop
    if (nextHistoryAfter(this.#state, revision) !== null || this.#state.status === 'idle') {
      void this.load();
    }
  }

  async #read(): Promise<void> {
    this.#commit({ ...this.#state, status: 'loading', error: null });
    try {
      for (;;) {
        const target = Math.max(1, this.#store.getState().revision);
        const after = nextHistoryAfter(this.#state, target);
        if (after === null) break;
        const page = await this.#fetchPage(after);
        this.#commit(mergeHistoryPage(this.#state, page, after));
        // The end of the log as the server read it: what the store holds later arrives live,
        // or is read again on the store's next notification (`#catchUp`).
        if (page.nextAfter === null) break;
      }
      this.#commit({ ...this.#state, status: 'ready' });
    } catch (error) {
      const typed = RunlightClientError.isInstance(error)
        ? error
        : new RunlightClientError('network', `Reading the history of run ${this.runId} failed`, {
            cause: error,
          });
      this.#commit({ ...this.#state, status: 'error', error: typed });
    }
  }

  async #fetchPage(after: number) {
    const limit = this.#context.pageSize ?? 200;
    const url = `${this.#context.baseUrl}/runs/${encodeURIComponent(this.runId)}/operations?after=${after}&limit=${limit}`;
    const init = (await this.#context.requestInit?.()) ?? {};
    const headers = new Headers(init.headers);
    headers.set('accept', 'application/json');
    const response = await this.#context.fetch(url, { ...init, headers });
    if (!response.ok) {
      await response.body?.cancel().catch(() => {});
      throw new RunlightClientError(
        httpErrorKind(response.status),
        `The history of run ${this.runId} answered HTTP ${response.status}`,
        { status: response.status },
      );
    }
    let body: unknown;
    try {
      body = await response.json();
    } catch (cause) {
      throw new RunlightClientError(
        'malformed-json',
        `The history of run ${this.runId} is not JSON`,
        {
          cause,
        },
      );
    }
    const parsed = safeParseRunOperationsPage(body);
    if (!parsed.success) {
      throw new RunlightClientError(
        'invalid-history',
        `The history of run ${this.runId} is invalid: ${parsed.error.message}`,
        { field: parsed.error.issues[0]?.path },
      );
    }
    if (parsed.data.runId !== this.runId) {
      throw new RunlightClientError('run-mismatch', `A history page of run ${parsed.data.runId}`);
    }
    return parsed.data;
  }

  #commit(next: RunHistoryState): void {
    if (next === this.#state) return;
    this.#state = next;
    if (this.#notifyScheduled) return;
    this.#notifyScheduled = true;
    queueMicrotask(() => {
      this.#notifyScheduled = false;
      for (const listener of [...this.#listeners]) listener();
    });
  }
}
