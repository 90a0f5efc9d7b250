import type { SnapshotLoad } from './connection/fetch-snapshot';

export interface ReconnectOptions {
  /** First retry delay (before jitter). Default 500 ms. */
  initialDelayMs: number;
  /** Cap of the exponential backoff. Default 15 s. */
  maxDelayMs: number;
}

/** What the client accepts from its server's stream; past a limit, a typed error or a reset. */
export interface StreamLimits {
  /**
   * Bytes one SSE event may take, counted from the end of the previous event; it also bounds
   * the parser's buffer (an event line that never ends). Default 16 MiB.
   */
  maxEventBytes: number;
  /** Out-of-order durable events held for a gap; past it they are dropped and the snapshot reloaded. Default 1,000. */
  maxHeldEvents: number;
  /** A durable revision more than this far beyond the state is implausible: reload. Default 100,000. */
  maxRevisionGap: number;
}

/** What a `RunStore` needs from its client: the transport, clocks and policies. */
export interface RunStoreContext {
  baseUrl: string;
  fetch: typeof globalThis.fetch;
  /** Headers and credentials for the next request: called before every request. */
  requestInit: () => Promise<RequestInit>;
  loadSnapshot: (runId: string, options: { signal?: AbortSignal }) => Promise<SnapshotLoad>;
  reconnect: ReconnectOptions;
  /** In [0, 1); the jitter source. */
  random: () => number;
  /** Wall clock in ms (clock-offset estimate, the not-found window, reload spacing). */
  now: () => number;
  /** Consecutive failed attempts after which the store reports `unreachable`. */
  unreachableAfterAttempts: number;
  /** Attempts unanswered this long in a row (ms) make the store report `unreachable`. */
  unreachableAfterMs: number;
  /** A request of this client unanswered this long (ms) shows the connection `waiting`. */
  waitingAfterMs: number;
  /** Snapshot loads and control requests with no answer in this long (ms) fail: `timeout`. */
  requestTimeoutMs: number;
  /** Runs this client started (`client.run(id, { started: true })`): they get `notFoundRetryMs`. */
  startedRuns: ReadonlySet<string>;
  /** A 404 for a run this client did not start is retried this long (ms), then final. */
  unknownRunRetryMs: number;
  /** A connection that receives nothing (not even a heartbeat) this long is dropped and retried. */
  stallTimeoutMs: number;
  /** A 404 this soon after the store first connected to a run it started is retried. */
  notFoundRetryMs: number;
  limits: StreamLimits;
}
