import {
  fetchRunSnapshot,
  type LoadedSnapshot,
  type SnapshotLoad,
} from './connection/fetch-snapshot';
import type { RunHistoryContext } from './history/run-history';
import { type ClientHooks, clientHooks } from './inspect/client-hooks';
import { type ApprovalAnswer, postApprovals, postRunControl } from './run-controls';
import { RunStore } from './run-store';
import type { ReconnectOptions, RunStoreContext, StreamLimits } from './run-store-context';
import { shareTabs } from './tabs/tab-shared-fetch';

export interface RunlightClientOptions {
  /** Where the run handlers are mounted, e.g. `https://example.com/api` (→ `/api/runs/:id`). */
  baseUrl: string;
  /** The transport; defaults to the global `fetch`. Tests pass their own. */
  fetch?: typeof globalThis.fetch;
  /**
   * Tabs of this origin share one copy of each run's event stream (`shareTabs`): one tab
   * reads it, the others follow over a `BroadcastChannel` and take over from their own cursor
   * when it closes or sleeps — so many tabs do not exhaust the browser's six connections per
   * host on HTTP/1.1. Only tabs whose requests match (`baseUrl`, headers, credentials) share;
   * without `BroadcastChannel` and `navigator.locks`, or outside a page, each keeps its own.
   * Default: `true` unless you pass your own `fetch` (its behaviour per tab is yours to know;
   * set `true` to share what it returns). `false` opts out.
   */
  shareTabs?: boolean;
  /**
   * Headers of every request — snapshots, the event stream, every reconnect — or a function
   * (sync or async) called before EACH request, so a refreshed token is picked up by the next
   * one. A 401 or 403 puts the store in the `unauthorized` connection state (error kind
   * `unauthorized`) until `client.retry()` / `store.retry()`, or a slow automatic retry.
   *
   * @example
   * createRunlightClient({ baseUrl: '/api', headers: async () => ({ authorization: `Bearer ${await getToken()}` }) });
   */
  headers?: HeadersInit | (() => HeadersInit | Promise<HeadersInit>);
  /** `fetch`'s `credentials` for every request, e.g. `'include'` for a cookie session across origins. */
  credentials?: RequestCredentials;
  /**
   * A 404 within this many ms of a store's first connect is retried with backoff (a run whose
   * id the app was just given may not be visible yet); later, it closes the connection
   * (`retry()` reopens it). Meanwhile `selectActivity` says `not-created` (a distinct, labelled
   * state: "Waiting for the run to start"). Default 30 000 ms.
   */
  notFoundRetryMs?: number;
  /** What the client accepts from its server's stream (see `StreamLimits`). */
  limits?: Partial<StreamLimits>;
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
   * Where this client's requests go, with what (its `baseUrl`, `fetch` and headers): what a
   * reader built on the client — e.g. `runHistoryOf(client, runId)` — sends its own with.
   */
  readonly requests: RunHistoryContext;
  /** Called on every `retry()` (e.g. a history that failed reads again); returns the unsubscribe. */
  onRetry(listener: () => void): () => void;
  /** `GET {baseUrl}/runs/:id`, validated, with the clock-offset estimate of its round trip. */
  fetchSnapshot(runId: string, options?: { signal?: AbortSignal }): Promise<LoadedSnapshot>;
  /**
   * Routes the snapshot loads of every store of this client through `loader` (e.g. a host's
   * query cache bound after the client was created) until the returned function is called,
   * which restores the previous loader. Loads already in flight are not affected.
   */
  setSnapshotLoader(loader: SnapshotLoader): () => void;
  /**
   * Cancels the run: `POST {baseUrl}/runs/:id/cancel` with the client's headers and
   * credentials; resolves once the server accepted it (`202`). The run's end arrives on its
   * store like any event. Throws `RunlightClientError` (`unauthorized`, `run-not-found`,
   * `http` with the server's `code`, `network`).
   */
  cancel(runId: string): Promise<void>;
  /**
   * Answers tool approval requests of a paused run: `POST {baseUrl}/runs/:id/approvals`
   * `{ approvals }` (1–100 answers, checked before sending: `invalid-request`); resolves once
   * the server admitted the resume (`202`). A run not awaiting them is `http` with
   * `code: 'not_awaiting_approval'`.
   */
  answerApprovals(runId: string, approvals: readonly ApprovalAnswer[]): Promise<void>;
  /**
   * `retry()` on every store of this client (e.g. after signing in again), and a new read of
   * every history that failed (`onRetry`).
   */
  retry(): void;
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
  const transport = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const fetch =
    (options.shareTabs ?? options.fetch === undefined)
      ? shareTabs({ baseUrl, fetch: transport })
      : transport;
  const now = options.now ?? Date.now;
  const { headers, credentials } = options;
  const requestInit = async (): Promise<RequestInit> => ({
    headers: typeof headers === 'function' ? await headers() : (headers ?? {}),
    ...(credentials === undefined ? {} : { credentials }),
  });
  const fetchSnapshot: RunlightClient['fetchSnapshot'] = (runId, fetchOptions = {}) =>
    fetchRunSnapshot({ baseUrl, fetch, now, requestInit }, runId, fetchOptions);
  const context: RunStoreContext = {
    baseUrl,
    fetch,
    requestInit,
    notFoundRetryMs: options.notFoundRetryMs ?? 30_000,
    limits: {
      maxEventBytes: options.limits?.maxEventBytes ?? 16 * 1024 * 1024,
      maxHeldEvents: options.limits?.maxHeldEvents ?? 1_000,
      maxRevisionGap: options.limits?.maxRevisionGap ?? 100_000,
    },
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
  const controls = { baseUrl, fetch, requestInit };
  const stores = new Map<string, RunStore>();
  const retryListeners = new Set<() => void>();
  const hooks: ClientHooks = { stores, now };
  const run = (runId: string): RunStore => {
    let store = stores.get(runId);
    if (store === undefined) {
      store = new RunStore(runId, context);
      stores.set(runId, store);
      hooks.added?.(store);
    }
    return store;
  };
  clientHooks.set(run, hooks);
  /** Shows a control request to the devtools' inspection, when there is one. */
  const sent = <T>(
    runId: string,
    kind: 'cancel' | 'approvals',
    answer: Promise<T>,
    approvals?: unknown,
  ): Promise<T> => {
    hooks.sent?.(runId, kind, answer, approvals);
    return answer;
  };
  return {
    run,
    requests: { baseUrl, fetch, requestInit },
    onRetry(listener) {
      retryListeners.add(listener);
      return () => retryListeners.delete(listener);
    },
    fetchSnapshot,
    cancel: (runId) => sent(runId, 'cancel', postRunControl(controls, runId, 'cancel', {})),
    answerApprovals: (runId, approvals) =>
      sent(runId, 'approvals', postApprovals(controls, runId, approvals), approvals),
    setSnapshotLoader(loader) {
      const previous = context.loadSnapshot;
      context.loadSnapshot = loader;
      return () => {
        // Only the binding still in place restores; a later binding keeps its own.
        if (context.loadSnapshot === loader) context.loadSnapshot = previous;
      };
    },
    retry() {
      for (const store of stores.values()) store.retry();
      for (const listener of retryListeners) listener();
    },
  };
}
