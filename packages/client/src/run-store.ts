import type { DurableRunEvent, RunSnapshot } from '@runlight/protocol';
import { validateSnapshot } from './connection/fetch-snapshot';
import { withRequestTimeout } from './connection/reach/with-request-timeout';
import { RunConnection } from './connection/run-connection';
import { RunlightClientError } from './errors/runlight-client-error';
import { mergeSnapshot } from './merge/merge-snapshot';
import { initialRunState, type RunState } from './merge/run-state';
import type { RunStoreContext } from './run-store-context';

export type { ReconnectOptions, RunStoreContext, StreamLimits } from './run-store-context';

/** What records a store's input (`RunStore.recorder`, e.g. `RunLog`). */
export interface RunStoreRecorder {
  snapshot(snapshot: RunSnapshot, clockOffsetMs: number | null): void;
  committed(previous: RunState, next: RunState): void;
}

/** The snapshot load in flight, and the signal of the session that asked for it. */
interface SnapshotLoading {
  promise: Promise<RunlightClientError | null>;
  signal: AbortSignal | undefined;
}

/**
 * The live, merged state of one run, shaped for `useSyncExternalStore`: `getState()` returns
 * a stable object that changes only when something changed, and subscribers are notified
 * once per burst (one microtask), not once per event. The connection machine (snapshot,
 * events, reconnects, limits) is `RunConnection`; this class holds the state.
 *
 * The live connection opens with the first subscriber and closes a tick after the last one
 * leaves, so React StrictMode's unsubscribe/resubscribe keeps one connection.
 *
 * @example
 * const store = client.run('run-1');
 * const unsubscribe = store.subscribe(() => render(selectActivity(store.getState())));
 */
export class RunStore {
  readonly runId: string;
  readonly #context: RunStoreContext;
  #state: RunState;
  readonly #listeners = new Set<() => void>();
  /** Told of every change like `#listeners`, but they neither open nor hold the connection. */
  readonly #watchers = new Set<() => void>();
  readonly #durableListeners = new Set<(event: DurableRunEvent) => void>();
  #notifyScheduled = false;
  #closeTimer: ReturnType<typeof setTimeout> | undefined;
  #loading: SnapshotLoading | null = null;
  readonly #connection: RunConnection;
  #recorder: RunStoreRecorder | null = null;

  constructor(runId: string, context: RunStoreContext) {
    this.runId = runId;
    this.#context = context;
    this.#state = initialRunState(runId);
    this.#connection = new RunConnection({
      runId,
      context,
      state: () => this.#state,
      commit: (next) => this.#commit(next),
      fail: (error) => this.#fail(error),
      load: (signal) => this.#load(signal),
      isLoading: () => this.#isLoading(),
      emitDurable: (event) => {
        for (const listener of this.#durableListeners) listener(event);
      },
    });
  }

  getState = (): RunState => this.#state;

  subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    if (this.#closeTimer !== undefined) {
      clearTimeout(this.#closeTimer);
      this.#closeTimer = undefined;
    }
    this.connect();
    return () => {
      if (!this.#listeners.delete(listener) || this.#listeners.size > 0) return;
      // Deferred by a tick: StrictMode unsubscribes and resubscribes synchronously.
      this.#closeTimer = setTimeout(() => {
        this.#closeTimer = undefined;
        if (this.#listeners.size === 0) this.disconnect();
      }, 0);
    };
  };

  /**
   * A passive subscription: `listener` is told of every change as a subscriber is, but it
   * neither opens the live connection nor keeps it open — it sees what the app's own
   * subscribers make the store receive. For developer tools and other onlookers.
   *
   * @example
   * const stop = store.watch(() => console.log(store.getState().connection));
   */
  watch = (listener: () => void): (() => void) => {
    this.#watchers.add(listener);
    return () => {
      this.#watchers.delete(listener);
    };
  };

  /**
   * Calls `listener` with every valid durable event of this run the live connection receives,
   * in arrival order, as it is merged (duplicates included). It does not open the connection.
   * The run history (`RunHistory`) builds on it: the store notifies once per burst, so its
   * states alone would not show every operation.
   */
  observeDurableEvents(listener: (event: DurableRunEvent) => void): () => void {
    this.#durableListeners.add(listener);
    return () => {
      this.#durableListeners.delete(listener);
    };
  }

  /**
   * Attaches what records this store's input from now on — every snapshot it merges and every
   * commit (durable events: `observeDurableEvents`) — made by `make` on the first call; later
   * calls return the same recorder. For developer tools: `runLogOf(store)` is the one to use.
   * It never opens the connection.
   */
  recorder<R extends RunStoreRecorder>(make: (state: RunState, now: () => number) => R): R {
    this.#recorder ??= make(this.#state, this.#context.now);
    return this.#recorder as R;
  }

  /** Opens the live connection (idempotent): snapshot first, then events from its cursor. */
  connect(): void {
    this.#connection.connect();
  }

  /** Closes the live connection; the merged state stays (a `closed` connection stays `closed`). */
  disconnect(): void {
    this.#connection.disconnect();
  }

  /**
   * Tries again now, e.g. after the app refreshed its credentials: leaves `unauthorized`,
   * reopens a connection `closed` by an error (a run that was not found), skips a backoff
   * wait. A run that completed stays closed. Without subscribers nothing opens.
   */
  retry(): void {
    if (this.#listeners.size === 0 && !this.#connection.open) return;
    this.#connection.retry();
  }

  /**
   * Follows a request of this client for this run — the client's `cancel` and
   * `answerApprovals` pass theirs here: while the browser has not answered it for
   * `waitingAfterMs`, the connection reads `waiting` ("waiting for a connection"), never `live`.
   * Resolves and rejects as `request` does.
   *
   * @example
   * await store.track(fetch(`/api/runs/${store.runId}/cancel`, { method: 'POST' }));
   */
  track<T>(request: Promise<T>): Promise<T> {
    return this.#connection.track(request);
  }

  /** Loads the snapshot now (through the host's `loadSnapshot`); resolves when merged. */
  async reload(): Promise<void> {
    await this.#load(undefined);
  }

  /**
   * Validates and merges a snapshot from anywhere (e.g. a host's query cache). A bad one sets
   * `state.error` and keeps the last good state. Returns whether it was valid.
   */
  applySnapshot(raw: unknown, options: { clockOffsetMs?: number | null } = {}): boolean {
    let snapshot: ReturnType<typeof validateSnapshot>;
    try {
      snapshot = validateSnapshot(raw, this.runId);
    } catch (error) {
      this.#fail(error);
      return false;
    }
    this.#recorder?.snapshot(snapshot, options.clockOffsetMs ?? null);
    // The error stays until the connection is live again: a UI should get to see it.
    this.#commit(mergeSnapshot(this.#state, snapshot, options));
    return true;
  }

  /** Loads and merges the snapshot; resolves `null`, or the error it reported on the state. */
  async #load(signal: AbortSignal | undefined): Promise<RunlightClientError | null> {
    // A load asked for by an ended session merges nothing (see below): it is not shared.
    if (this.#isLoading()) return this.#loading!.promise;
    const run = async (): Promise<RunlightClientError | null> => {
      try {
        // Bounded (`requestTimeoutMs`) and followed (`waiting`): a load queued behind the
        // browser's connection limit neither hangs silently nor reads as `live`.
        const loaded = await this.#connection.track(
          withRequestTimeout(
            (bounded) => this.#context.loadSnapshot(this.runId, { signal: bounded }),
            {
              timeoutMs: this.#context.requestTimeoutMs,
              what: `Loading the snapshot of run ${this.runId}`,
              signal,
            },
          ),
        );
        if (signal?.aborted) return null;
        const valid = this.applySnapshot(loaded.snapshot, {
          clockOffsetMs: loaded.clockOffsetMs ?? null,
        });
        return valid ? null : this.#state.error;
      } catch (error) {
        if (signal?.aborted) return null;
        this.#fail(error);
        return this.#state.error;
      } finally {
        if (this.#loading === loading) this.#loading = null;
      }
    };
    const loading: SnapshotLoading = { promise: Promise.resolve(null), signal };
    this.#loading = loading;
    loading.promise = run();
    return loading.promise;
  }

  #isLoading(): boolean {
    return this.#loading !== null && this.#loading.signal?.aborted !== true;
  }

  #fail(error: unknown): void {
    const typed = RunlightClientError.isInstance(error)
      ? error
      : new RunlightClientError('network', `Run ${this.runId}: ${describe(error)}`, {
          cause: error,
        });
    this.#commit({ ...this.#state, error: typed });
  }

  #commit(next: RunState): void {
    if (next === this.#state) return;
    this.#recorder?.committed(this.#state, next);
    this.#state = next;
    if (this.#notifyScheduled) return;
    this.#notifyScheduled = true;
    queueMicrotask(() => {
      this.#notifyScheduled = false;
      for (const listener of [...this.#listeners]) listener();
      for (const watcher of [...this.#watchers]) watcher();
    });
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
