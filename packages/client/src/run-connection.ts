import { type DurableRunEvent, isDurableEvent, isTerminalStatus } from '@runlight/protocol';
import type { EventSourceMessage } from 'eventsource-parser';
import { applyEvent } from './apply-event';
import { BoundedSseParser } from './bounded-sse-parser';
import { cursorOf } from './cursor';
import { RunlightClientError } from './errors/runlight-client-error';
import { httpErrorKind } from './fetch-snapshot';
import { applyInOrder, DropsAtCursor, followEventRef } from './follow-event-ref';
import { HeldEvents } from './held-events';
import { parseServerMessage } from './parse-server-message';
import type { ConnectionState, RunState } from './run-state';
import type { RunStoreContext } from './run-store-context';

/** What the connection needs from the store that holds the state. */
export interface RunStoreHost {
  readonly runId: string;
  readonly context: RunStoreContext;
  state(): RunState;
  commit(next: RunState): void;
  /** Records an error on the state (the last good state stays). */
  fail(error: unknown): void;
  /** Loads and merges the snapshot (deduplicated); the error it reported, or `null`. */
  load(signal: AbortSignal): Promise<RunlightClientError | null>;
  isLoading(): boolean;
  /** Hands a valid durable event to `observeDurableEvents` listeners. */
  emitDurable(event: DurableRunEvent): void;
}

type StreamOutcome = 'ended' | 'reset';

const STALLED = new Error('stalled');

/**
 * The live connection of one run store — snapshot first, then `GET …/events` from the
 * state's cursor, reconnecting with backoff:
 *
 * ```
 *  idle ─open─► connecting ─► live ─server ends, run terminal─► closed ◄─┐
 *                   ▲          │                                       │ 404 past the
 *                   │   drop / error / reset / limit                   │ window, other 4xx
 *                   │          ▼                                       │
 *                   └─backoff─ reconnecting ─N failures─► offline      │
 *                   ▲                                                  │
 *                   └── retry() (or slow backoff) ── unauthorized ◄── 401 / 403
 * ```
 *
 * `retry()` leaves `unauthorized` and `closed` (nothing the app can fix closes for good). A
 * 404 within `notFoundRetryMs` of the first connect is retried: a run just created may not be
 * visible yet. Gap reloads beside the stream are one at a time, spaced by the backoff.
 */
export class RunConnection {
  readonly #host: RunStoreHost;
  #session: AbortController | null = null;
  #wake: (() => void) | null = null;
  /** Highest durable revision received on the current connection (to catch one going back). */
  #connectionRevision = 0;
  #failures = 0;
  #firstConnectAt: number | null = null;
  #gapTimer: ReturnType<typeof setTimeout> | undefined;
  #gapAttempt = 0;
  #lastGapReloadAt = Number.NEGATIVE_INFINITY;
  /** Streams that broke off after opening, at one cursor (the dropped-twice rule). */
  readonly #drops = new DropsAtCursor();

  constructor(host: RunStoreHost) {
    this.#host = host;
  }

  get open(): boolean {
    return this.#session !== null;
  }

  /** Opens the connection (idempotent). */
  connect(): void {
    if (this.#session !== null) return;
    const session = new AbortController();
    this.#session = session;
    this.#firstConnectAt ??= this.#host.context.now();
    void this.#live(session.signal);
  }

  /** Closes the connection; the state stays. */
  disconnect(): void {
    this.#clearGapTimer();
    if (this.#session === null) return;
    this.#session.abort();
    this.#session = null;
    this.#setConnection('idle');
  }

  /**
   * Tries again now: leaves `unauthorized` (with the headers the app's function gives now),
   * reopens a `closed` connection that ended on an error, skips a backoff wait.
   */
  retry(): void {
    if (this.#session === null) {
      const { connection } = this.#host.state();
      if (connection === 'closed' && this.#isComplete()) return;
      this.#firstConnectAt = this.#host.context.now();
      this.connect();
      return;
    }
    this.#wake?.();
  }

  /** The connection loop of one session: (re)load when needed, stream, back off, repeat. */
  async #live(signal: AbortSignal): Promise<void> {
    let attempt = 0;
    let reloadFirst = false;
    let withoutLiveCursor = false;
    while (!signal.aborted) {
      this.#setConnection(attempt === 0 ? 'connecting' : this.#retryState());
      let wait: 'backoff' | 'unauthorized' = 'backoff';
      let opened = false;
      try {
        const state = this.#host.state();
        const needsLoad = reloadFirst || state.run === null || state.phase === 'gap';
        const failure = needsLoad ? await this.#host.load(signal) : null;
        if (failure !== null) throw failure;
        reloadFirst = false;
        const outcome = await this.#stream(signal, withoutLiveCursor, () => {
          opened = true;
          attempt = 0;
          this.#failures = 0;
        });
        withoutLiveCursor = false;
        if (outcome === 'reset') {
          // The server (or a client limit) wants a fresh start: reload, then resume from R.
          reloadFirst = true;
          withoutLiveCursor = true;
        } else if (this.#isComplete()) {
          this.#end(signal, 'closed');
          return;
        }
      } catch (error) {
        if (signal.aborted) return;
        if (opened && this.#drops.droppedTwice(cursorOf(this.#host.state()))) {
          // Dropped twice at one cursor (e.g. an event this client cannot take): resuming
          // there again would loop. Reload the snapshot instead and resume from its revision.
          reloadFirst = true;
          withoutLiveCursor = true;
        }
        if (error !== this.#host.state().error) this.#host.fail(error);
        if (isUnauthorized(error)) {
          wait = 'unauthorized';
        } else if (this.#isPermanent(error)) {
          this.#end(signal, 'closed');
          return;
        } else {
          this.#failures++;
        }
      }
      attempt++;
      if (wait === 'unauthorized') {
        // Waits for `retry()`; a slow retry also picks up headers the app refreshed meanwhile.
        this.#setConnection('unauthorized');
        await this.#pause(this.#host.context.reconnect.maxDelayMs, signal);
        attempt = 0;
        continue;
      }
      this.#setConnection(this.#retryState());
      await this.#pause(this.#delay(attempt), signal);
    }
  }

  #end(signal: AbortSignal, connection: ConnectionState): void {
    this.#setConnection(connection);
    if (this.#session?.signal === signal) this.#session = null;
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
    const { stallTimeoutMs } = this.#host.context;
    let stall: ReturnType<typeof setTimeout> | undefined;
    const watch = () => {
      clearTimeout(stall);
      stall = setTimeout(() => connection.abort(STALLED), stallTimeoutMs);
    };
    try {
      return await this.#read(connection.signal, withoutLiveCursor, onOpen, watch);
    } catch (cause) {
      if (signal.aborted || !connection.signal.aborted) throw cause;
      throw new RunlightClientError(
        'network',
        `The event stream of run ${this.#host.runId} sent nothing, not even a heartbeat, for ${stallTimeoutMs} ms`,
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
    const { runId, context } = this.#host;
    const state = this.#host.state();
    const cursor = withoutLiveCursor ? `${state.revision}` : cursorOf(state)!;
    const url = `${context.baseUrl}/runs/${encodeURIComponent(runId)}/events`;
    let response: Response;
    watch();
    try {
      const init = await context.requestInit();
      const headers = new Headers(init.headers);
      headers.set('accept', 'text/event-stream');
      headers.set('last-event-id', cursor);
      response = await context.fetch(url, { ...init, headers, signal });
    } catch (cause) {
      if (signal.aborted) throw cause;
      throw new RunlightClientError('network', `Connecting to the events of run ${runId} failed`, {
        cause,
      });
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
      throw new RunlightClientError(
        httpErrorKind(response.status),
        `The events of run ${runId} answered HTTP ${response.status}`,
        { status: response.status },
      );
    }
    const type = response.headers.get('content-type') ?? '';
    if (!type.toLowerCase().startsWith('text/event-stream') || response.body === null) {
      await response.body?.cancel().catch(() => {});
      throw new RunlightClientError(
        'content-type',
        `The events of run ${runId} answered "${type || 'no content type'}", not text/event-stream`,
        { field: 'content-type' },
      );
    }
    this.#connectionRevision = 0;
    onOpen();
    this.#host.commit({ ...this.#host.state(), connection: 'live', error: null });

    let batch: EventSourceMessage[] = [];
    const parser = new BoundedSseParser(context.limits.maxEventBytes, (message) =>
      batch.push(message),
    );
    const reader = response.body.getReader();
    try {
      for (;;) {
        watch();
        const { done, value } = await reader.read();
        if (done) return 'ended';
        parser.feed(value);
        if (batch.length === 0) continue;
        const messages = batch;
        batch = [];
        const follow = async (ref: EventSourceMessage) => {
          const event = await followEventRef(context, runId, ref, signal);
          watch(); // the fetch is progress: the stall clock restarts after it
          return event;
        };
        if (await applyInOrder(messages, (part) => this.#applyBatch(part), follow)) return 'reset';
      }
    } catch (cause) {
      if (signal.aborted || RunlightClientError.isInstance(cause)) throw cause;
      throw new RunlightClientError('network', `The event stream of run ${runId} broke off`, {
        cause,
      });
    } finally {
      reader.cancel().catch(() => {});
    }
  }

  /** Merges one parsed burst with one commit (one notification). Returns whether to reset. */
  #applyBatch(messages: EventSourceMessage[]): boolean {
    const { runId, context } = this.#host;
    const { maxHeldEvents, maxRevisionGap } = context.limits;
    let state = this.#host.state();
    let error: RunlightClientError | null = null;
    let reset = false;
    let revoked: RunlightClientError | null = null;
    for (const message of messages) {
      const parsed = parseServerMessage(message, runId);
      if (parsed.kind === 'invalid') {
        error = parsed.error;
        continue;
      }
      if (parsed.kind === 'unauthorized') {
        // Access was revoked mid-stream: keep what arrived before it, then stop as on a 401/403.
        revoked = parsed.error;
        break;
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
        if (
          !Number.isSafeInteger(event.revision + maxRevisionGap) ||
          (state.run !== null && event.revision > state.revision + maxRevisionGap)
        ) {
          // Waiting for the revisions in between would wait forever: reload instead.
          error = new RunlightClientError(
            'implausible-revision',
            `Revision ${event.revision} is implausibly far beyond revision ${state.revision} (maxRevisionGap ${maxRevisionGap})`,
            { field: 'revision' },
          );
          reset = true;
          break;
        }
        this.#connectionRevision = event.revision;
        this.#host.emitDurable(event);
      }
      state = applyEvent(state, event);
      if (state.pending.size > maxHeldEvents) {
        // Held events are bounded: drop them (the snapshot covers them) and reload.
        state = { ...state, pending: HeldEvents.empty, phase: 'gap' };
        error = new RunlightClientError(
          'limit-exceeded',
          `More than ${maxHeldEvents} out-of-order events are held (maxHeldEvents): reloading`,
          { field: 'maxHeldEvents' },
        );
        reset = true;
        break;
      }
    }
    this.#host.commit(error === null ? state : { ...state, error });
    if (revoked !== null) throw revoked;
    if (!reset && this.#host.state().phase === 'gap') this.#reloadForGap();
    return reset;
  }

  /**
   * A gap while streaming: reload the snapshot beside the stream — one load at a time, never
   * sooner than the backoff after the previous one, however many chunks arrive meanwhile.
   */
  #reloadForGap(): void {
    const signal = this.#session?.signal;
    if (signal === undefined || this.#gapTimer !== undefined || this.#host.isLoading()) return;
    const wait = this.#lastGapReloadAt + this.#delay(this.#gapAttempt) - this.#host.context.now();
    if (wait > 0) {
      this.#gapTimer = setTimeout(() => {
        this.#gapTimer = undefined;
        if (!signal.aborted && this.#host.state().phase === 'gap') this.#reloadForGap();
      }, wait);
      return;
    }
    this.#lastGapReloadAt = this.#host.context.now();
    this.#gapAttempt++;
    void this.#host.load(signal).then(() => {
      if (signal.aborted) return;
      if (this.#host.state().phase !== 'gap') this.#gapAttempt = 0;
      else this.#reloadForGap();
    });
  }

  #clearGapTimer(): void {
    clearTimeout(this.#gapTimer);
    this.#gapTimer = undefined;
  }

  #isComplete(): boolean {
    const { run, phase } = this.#host.state();
    return run !== null && isTerminalStatus(run.status) && phase === 'synced';
  }

  /** A 404 past the just-created window, or a 4xx the server means for good. */
  #isPermanent(error: unknown): boolean {
    if (!RunlightClientError.isInstance(error)) return false;
    if (error.kind === 'run-not-found') {
      const since = this.#host.context.now() - (this.#firstConnectAt ?? 0);
      return since >= this.#host.context.notFoundRetryMs;
    }
    const status = error.status ?? 0;
    return (
      error.kind === 'http' && status >= 400 && status < 500 && status !== 408 && status !== 429
    );
  }

  #retryState(): ConnectionState {
    const online = (globalThis as { navigator?: { onLine?: boolean } }).navigator?.onLine;
    return online === false || this.#failures >= this.#host.context.offlineAfterAttempts
      ? 'offline'
      : 'reconnecting';
  }

  /** Exponential backoff with equal jitter: half the step fixed, half random. */
  #delay(attempt: number): number {
    if (attempt <= 0) return 0;
    const { initialDelayMs, maxDelayMs } = this.#host.context.reconnect;
    const step = Math.min(maxDelayMs, initialDelayMs * 2 ** Math.max(0, attempt - 1));
    return step / 2 + this.#host.context.random() * (step / 2);
  }

  /** Waits `ms`, less when `retry()` is called or the browser is back online, or until aborted. */
  #pause(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const target = globalThis as {
        addEventListener?: (type: string, listener: () => void) => void;
        removeEventListener?: (type: string, listener: () => void) => void;
      };
      const done = () => {
        clearTimeout(timer);
        this.#wake = null;
        signal.removeEventListener('abort', done);
        target.removeEventListener?.('online', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#wake = done;
      signal.addEventListener('abort', done);
      target.addEventListener?.('online', done);
    });
  }

  #setConnection(connection: ConnectionState): void {
    const state = this.#host.state();
    if (state.connection !== connection) this.#host.commit({ ...state, connection });
  }
}

function isUnauthorized(error: unknown): boolean {
  return RunlightClientError.isInstance(error) && error.kind === 'unauthorized';
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
