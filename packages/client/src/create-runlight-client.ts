import { fetchRunSnapshot, type LoadedSnapshot, type SnapshotLoad } from './fetch-snapshot';
import { RunHistory } from './run-history';
import { type ReconnectOptions, RunStore, type RunStoreContext } from './run-store';

export interface RunlightClientOptions {
  /** Where the run handlers are mounted, e.g. `https://example.com/api` (→ `/api/runs/:id`). */
  baseUrl: string;
  /** The transport; defaults to the global `fetch`. Tests pass their own. */
  fetch?: typeof globalThis.fetch;
  reconnect?: Partial<ReconnectOptions>;
  /** Jitter source in [0, 1); defaults to `Math.random`. */
  random?: () => number;
  /** Client wall clock in ms; defaults to `Date.now`. */
  now?: () => number;
  /**
   * Routes every snapshot load (initial, gap and reset reloads) through the host, e.g. a
   * TanStack Query cache. Defaults to `client.fetchSnapshot`. The result is validated again.
   */
  loadSnapshot?: SnapshotLoader;
  /**
   * Consecutive failed attempts after which the connection reports `offline` (it keeps
   * retrying). A browser with `navigator.onLine === false` reports `offline` at once. Default 3.
   */
  offlineAfterAttempts?: number;
  /**
   * A live connection that receives nothing — not even the server's `: ping` heartbeat (every
   * 15 s by default) — for this long is treated as dead and reconnected. Default 45 000 ms.
   */
  stallTimeoutMs?: number;
}

export interface RunlightClient {
  /** The store of `runId`; one per id, cached for the client's lifetime. */
  run(runId: string): RunStore;
  /**
   * The operation history of `runId` (one per id), merged with its store's live events. It
   * reads nothing until something subscribes to it.
   */
  history(runId: string): RunHistory;
  /** `GET {baseUrl}/runs/:id`, validated, with the clock-offset estimate of its round trip. */
  fetchSnapshot(runId: string, options?: { signal?: AbortSignal }): Promise<LoadedSnapshot>;
  /**
   * Routes the snapshot loads of every store of this client through `loader` (e.g. a host's
   * query cache bound after the client was created) until the returned function is called,
   * which restores the previous loader. Loads already in flight are not affected.
   */
  setSnapshotLoader(loader: SnapshotLoader): () => void;
}

/** How a store loads a snapshot (the `loadSnapshot` option). */
export type SnapshotLoader = (
  runId: string,
  options: { signal?: AbortSignal },
) => Promise<SnapshotLoad>;

/**
 * Creates the headless Runlight client.
 *
 * @example
 * const client = createRunlightClient({ baseUrl: '/api' });
 * const store = client.run('run-1');
 * const unsubscribe = store.subscribe(() => console.log(selectActivity(store.getState()).kind));
 */
export function createRunlightClient(options: RunlightClientOptions): RunlightClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const now = options.now ?? Date.now;
  const fetchSnapshot: RunlightClient['fetchSnapshot'] = (runId, fetchOptions = {}) =>
    fetchRunSnapshot({ baseUrl, fetch, now }, runId, fetchOptions);
  const context: RunStoreContext = {
    baseUrl,
    fetch,
    now,
    loadSnapshot: options.loadSnapshot ?? fetchSnapshot,
    reconnect: {
      initialDelayMs: options.reconnect?.initialDelayMs ?? 500,
      maxDelayMs: options.reconnect?.maxDelayMs ?? 15_000,
    },
    random: options.random ?? Math.random,
    offlineAfterAttempts: options.offlineAfterAttempts ?? 3,
    stallTimeoutMs: options.stallTimeoutMs ?? 45_000,
  };
  const stores = new Map<string, RunStore>();
  const histories = new Map<string, RunHistory>();
  const run = (runId: string): RunStore => {
    let store = stores.get(runId);
    if (store === undefined) {
      store = new RunStore(runId, context);
      stores.set(runId, store);
    }
    return store;
  };
  return {
    run,
    history(runId) {
      let history = histories.get(runId);
      if (history === undefined) {
        history = new RunHistory(run(runId), { baseUrl, fetch });
        histories.set(runId, history);
      }
      return history;
    },
    fetchSnapshot,
    setSnapshotLoader(loader) {
      const previous = context.loadSnapshot;
      context.loadSnapshot = loader;
      return () => {
        // Only the binding still in place restores; a later binding keeps its own.
        if (context.loadSnapshot === loader) context.loadSnapshot = previous;
      };
    },
  };
}
