import { type DurableRunEvent, isDurableEvent, isTerminalStatus } from '@runlight/protocol';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { applyEvent } from './apply-event';
import { cursorOf } from './cursor';
import { RunlightClientError } from './errors/runlight-client-error';
import { type SnapshotLoad, validateSnapshot } from './fetch-snapshot';
import { mergeSnapshot } from './merge-snapshot';
import { parseServerMessage } from './parse-server-message';
import { type ConnectionState, initialRunState, type RunState } from './run-state';

export interface ReconnectOptions {
  /** First retry delay (before jitter). Default 500 ms. */
  initialDelayMs: number;
  /** Cap of the exponential backoff. Default 15 s. */
  maxDelayMs: number;
}

/** What a `RunStore` needs from its client: the transport, clocks and policies. */
export interface RunStoreContext {
  baseUrl: string;
  fetch: typeof globalThis.fetch;
  loadSnapshot: (runId: string, options: { signal?: AbortSignal }) => Promise<SnapshotLoad>;
  reconnect: ReconnectOptions;
  /** In [0, 1); the jitter source. */
  random: () => number;
  /** Wall clock in ms (for the clock-offset estimate). */
  now: () => number;
  /** Consecutive failed attempts after which the store reports `offline`. */
  offlineAfterAttempts: number;
  /** A connection that receives nothing (not even a heartbeat) this long is dropped and retried. */
  stallTimeoutMs: number;
}

type StreamOutcome = 'ended' | 'reset';

const STALLED = new Error('stalled');

/**
 * The live, merged state of one run, shaped for `useSyncExternalStore`: `getState()` returns
 * a stable object that changes only when something changed, and subscribers are notified
 * once per burst (one microtask), not once per event.
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
  readonly #durableListeners = new Set<(event: DurableRunEvent) => void>();
  #notifyScheduled = false;
  #closeTimer: ReturnType<typeof setTimeout> | undefined;
  #session: AbortController | null = null;
  #loading: Promise<RunlightClientError | null> | null = null;
  #gapRetry: ReturnType<typeof setTimeout> | undefined;
  /** Highest durable revision received on the current connection (to catch one going back). */
  #connectionRevision = 0;
  #failures = 0;

  constructor(runId: string, context: RunStoreContext) {
    this.runId = runId;
    this.#context = context;
    this.#state = initialRunState(runId);
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

  /** Opens the live connection (idempotent): snapshot first, then events from its cursor. */
  connect(): void {
    if (this.#session !== null) return;
    const session = new AbortController();
    this.#session = session;
    void this.#live(session.signal);
  }

  /** Closes the live connection; the merged state stays (a `closed` connection stays `closed`). */
  disconnect(): void {
    clearTimeout(this.#gapRetry);
    if (this.#session === null) return;
    this.#session.abort();
    this.#session = null;
    this.#setConnection('idle');
  }

  /** Loads the snapshot now (through the host's `loadSnapshot`); resolves when merged. */
  async reload(): Promise<void> {
    await this.#load(this.#session?.signal);
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
    // The error stays until the connection is live again: a UI should get to see it.
    this.#commit(mergeSnapshot(this.#state, snapshot, options));
    return true;
  }

  /** Loads and merges the snapshot; resolves `null`, or the error it reported on the state. */
  async #load(signal: AbortSignal | undefined): Promise<RunlightClientError | null> {
    if (this.#loading !== null) return this.#loading;
    const loading = (async () => {
      try {
        const loaded = await this.#context.loadSnapshot(this.runId, signal ? { signal } : {});
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
        this.#loading = null;
      }
    })();
    this.#loading = loading;
    return loading;
  }

  /** The connection loop of one session: (re)load when needed, stream, back off, repeat. */
  async #live(signal: AbortSignal): Promise<void> {
    let attempt = 0;
    let reloadFirst = false;
    let withoutLiveCursor = false;
    while (!signal.aborted) {
      this.#setConnection(attempt === 0 ? 'connecting' : this.#retryState());
      try {
        const needsLoad = reloadFirst || this.#state.run === null || this.#state.phase === 'gap';
        const failure = needsLoad ? await this.#load(signal) : null;
        if (failure !== null) throw failure;
        reloadFirst = false;
        const outcome = await this.#stream(signal, withoutLiveCursor, () => {
          attempt = 0;
          this.#failures = 0;
        });
        withoutLiveCursor = false;
        if (outcome === 'reset') {
          // The server no longer has the deltas after our cursor: reload, then resume from R.
          reloadFirst = true;
          withoutLiveCursor = true;
        } else if (this.#isComplete()) {
          this.#setConnection('closed');
          if (this.#session?.signal === signal) this.#session = null;
          return;
        }
      } catch (error) {
        if (signal.aborted) return;
        if (error !== this.#state.error) this.#fail(error);
        if (isPermanent(error)) {
          this.#setConnection('closed');
          if (this.#session?.signal === signal) this.#session = null;
          return;
        }
        this.#failures++;
      }
      attempt++;
      this.#setConnection(this.#retryState());
      await this.#pause(this.#delay(attempt), signal);
    }
  }

  /** One SSE connection; resolves when the server ends it or orders a reset. */
  async #stream(
    signal: AbortSignal,
    withoutLiveCursor: boolean,
    onOpen: () => void,
  ): Promise<StreamOutcome> {
    // The connection's own abort: the session's, or a stall (no byte, not even a heartbeat).
    const connection = new AbortController();
    const onSessionAbort = () => connection.abort(signal.reason);
    signal.addEventListener('abort', onSessionAbort);
    let stall: ReturnType<typeof setTimeout> | undefined;
    const watch = () => {
      clearTimeout(stall);
      stall = setTimeout(() => connection.abort(STALLED), this.#context.stallTimeoutMs);
    };
    try {
      return await this.#read(connection.signal, withoutLiveCursor, onOpen, watch);
    } catch (cause) {
      if (signal.aborted || !connection.signal.aborted) throw cause;
      throw new RunlightClientError(
        'network',
        `The event stream of run ${this.runId} sent nothing, not even a heartbeat, for ${this.#context.stallTimeoutMs} ms`,
        { cause },
      );
    } finally {
      clearTimeout(stall);
      signal.removeEventListener('abort', onSessionAbort);
    }
  }

  async #read(
    signal: AbortSignal,
    withoutLiveCursor: boolean,
    onOpen: () => void,
    watch: () => void,
  ): Promise<StreamOutcome> {
    const cursor = withoutLiveCursor ? `${this.#state.revision}` : cursorOf(this.#state)!;
    const url = `${this.#context.baseUrl}/runs/${encodeURIComponent(this.runId)}/events`;
    let response: Response;
    watch();
    try {
      response = await this.#context.fetch(url, {
        headers: { accept: 'text/event-stream', 'last-event-id': cursor },
        signal,
      });
    } catch (cause) {
      if (signal.aborted) throw cause;
      throw new RunlightClientError(
        'network',
        `Connecting to the events of run ${this.runId} failed`,
        { cause },
      );
    }
    if (
      response.status === 400 &&
      !withoutLiveCursor &&
      (await errorCodeOf(response)) === 'bad_cursor'
    ) {
      // The server refuses the cursor built from our state (e.g. a server of another version):
      // treat it as a reset — reload the snapshot, then resume from its revision alone.
      return 'reset';
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => {});
      const kind = response.status === 404 ? 'run-not-found' : 'http';
      throw new RunlightClientError(
        kind,
        `The events of run ${this.runId} answered HTTP ${response.status}`,
        { status: response.status },
      );
    }
    const type = response.headers.get('content-type') ?? '';
    if (!type.toLowerCase().startsWith('text/event-stream') || response.body === null) {
      await response.body?.cancel().catch(() => {});
      throw new RunlightClientError(
        'content-type',
        `The events of run ${this.runId} answered "${type || 'no content type'}", not text/event-stream`,
        { field: 'content-type' },
      );
    }
    this.#connectionRevision = 0;
    onOpen();
    this.#commit({ ...this.#state, connection: 'live', error: null });

    let batch: EventSourceMessage[] = [];
    const parser = createParser({ onEvent: (message) => batch.push(message) });
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    try {
      for (;;) {
        watch();
        const { done, value } = await reader.read();
        if (done) return 'ended';
        parser.feed(value);
        if (batch.length === 0) continue;
        const messages = batch;
        batch = [];
        if (this.#applyBatch(messages)) return 'reset';
      }
    } catch (cause) {
      if (signal.aborted) throw cause;
      throw new RunlightClientError('network', `The event stream of run ${this.runId} broke off`, {
        cause,
      });
    } finally {
      reader.cancel().catch(() => {});
    }
  }

  /** Merges one parsed burst with one commit (one notification). Returns whether to reset. */
  #applyBatch(messages: EventSourceMessage[]): boolean {
    let state = this.#state;
    let error: RunlightClientError | null = null;
    let reset = false;
    for (const message of messages) {
      const parsed = parseServerMessage(message, this.runId);
      if (parsed.kind === 'invalid') {
        error = parsed.error;
        continue;
      }
      if (parsed.kind === 'reset') {
        reset = true;
        break;
      }
      const { event } = parsed;
      if (isDurableEvent(event)) {
        if (event.revision < this.#connectionRevision) {
          error = new RunlightClientError(
            'revision-backwards',
            `Revision ${event.revision} arrived after revision ${this.#connectionRevision} on one connection`,
            { field: 'revision' },
          );
          continue;
        }
        this.#connectionRevision = event.revision;
        for (const listener of this.#durableListeners) listener(event);
      }
      state = applyEvent(state, event);
    }
    this.#commit(error === null ? state : { ...state, error });
    if (!reset && this.#state.phase === 'gap') this.#reloadForGap(1);
    return reset;
  }

  /** A gap while streaming: reload the snapshot beside the stream, retrying with backoff. */
  #reloadForGap(attempt: number): void {
    const signal = this.#session?.signal;
    if (signal === undefined || this.#loading !== null) return;
    void this.#load(signal).then(() => {
      if (signal.aborted || this.#state.phase !== 'gap') return;
      this.#gapRetry = setTimeout(() => this.#reloadForGap(attempt + 1), this.#delay(attempt));
    });
  }

  #isComplete(): boolean {
    const { run, phase } = this.#state;
    return run !== null && isTerminalStatus(run.status) && phase === 'synced';
  }

  #retryState(): ConnectionState {
    const online = (globalThis as { navigator?: { onLine?: boolean } }).navigator?.onLine;
    return online === false || this.#failures >= this.#context.offlineAfterAttempts
      ? 'offline'
      : 'reconnecting';
  }

  /** Exponential backoff with equal jitter: half the step fixed, half random. */
  #delay(attempt: number): number {
    const { initialDelayMs, maxDelayMs } = this.#context.reconnect;
    const step = Math.min(maxDelayMs, initialDelayMs * 2 ** Math.max(0, attempt - 1));
    return step / 2 + this.#context.random() * (step / 2);
  }

  /** Waits `ms`, or less when the browser reports it is back online, or until aborted. */
  #pause(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const target = globalThis as {
        addEventListener?: (type: string, listener: () => void) => void;
        removeEventListener?: (type: string, listener: () => void) => void;
      };
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        target.removeEventListener?.('online', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done);
      target.addEventListener?.('online', done);
    });
  }

  #fail(error: unknown): void {
    const typed = RunlightClientError.isInstance(error)
      ? error
      : new RunlightClientError('network', `Run ${this.runId}: ${describe(error)}`, {
          cause: error,
        });
    this.#commit({ ...this.#state, error: typed });
  }

  #setConnection(connection: ConnectionState): void {
    if (this.#state.connection !== connection) this.#commit({ ...this.#state, connection });
  }

  #commit(next: RunState): void {
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

/** The `error.code` of a JSON error body, or `undefined`. */
async function errorCodeOf(response: Response): Promise<unknown> {
  try {
    const body = (await response.clone().json()) as { error?: { code?: unknown } };
    return body?.error?.code;
  } catch {
    return undefined;
  }
}

/** A run that does not exist, or a request the server refuses for good: stop retrying. */
function isPermanent(error: unknown): boolean {
  if (!RunlightClientError.isInstance(error)) return false;
  if (error.kind === 'run-not-found') return true;
  const status = error.status ?? 0;
  return error.kind === 'http' && status >= 400 && status < 500 && status !== 408 && status !== 429;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
