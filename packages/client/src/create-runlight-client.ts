import { fetchRunSnapshot, type LoadedSnapshot, type SnapshotLoad } from './fetch-snapshot';
import { type ReconnectOptions, RunStore } from './run-store';

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
  loadSnapshot?: (runId: string, options: { signal?: AbortSignal }) => Promise<SnapshotLoad>;
  /**
   * Consecutive failed attempts after which the connection reports `offline` (it keeps
   * retrying). A browser with `navigator.onLine === false` reports `offline` at once. Default 3.
   */
  offlineAfterAttempts?: number;
}

export interface RunlightClient {
  /** The store of `runId`; one per id, cached for the client's lifetime. */
  run(runId: string): RunStore;
  /** `GET {baseUrl}/runs/:id`, validated, with the clock-offset estimate of its round trip. */
  fetchSnapshot(runId: string, options?: { signal?: AbortSignal }): Promise<LoadedSnapshot>;
}

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
  const context = {
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
  };
  const stores = new Map<string, RunStore>();
  return {
    run(runId) {
      let store = stores.get(runId);
      if (store === undefined) {
        store = new RunStore(runId, context);
        stores.set(runId, store);
      }
      return store;
    },
    fetchSnapshot,
  };
}
