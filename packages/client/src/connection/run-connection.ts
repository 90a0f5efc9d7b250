import { isTerminalStatus } from '@runlight/protocol';
import type { EventSourceMessage } from 'eventsource-parser';
import { RunlightClientError } from '../errors/runlight-client-error';
import type { ConnectionState } from '../merge/run-state';
import { applyStreamBatch } from './apply-stream-batch';
import { BoundedSseParser } from './bounded-sse-parser';
import { cursorOf } from './cursor';
import { applyInOrder, DropsAtCursor, followEventRef } from './follow-event-ref';
import { openEventStream } from './open-event-stream';
import { ConnectionStatus } from './reach/connection-status';
import { isNotFound, isUnauthorized, notReached } from './reach/failure-kind';
import { backoffDelay, pauseFor } from './reconnect-timing';
import type { RunStoreHost } from './run-store-host';

export type { RunStoreHost } from './run-store-host';

/** `ended`: the server closed the stream; `finished`: it answered 204 (the run has ended). */
type StreamOutcome = 'ended' | 'finished' | 'reset';

const STALLED = new Error('stalled');

/**
 * The live connection of one run store — snapshot first, then `GET …/events` from the
 * state's cursor, reconnecting with backoff:
 *
 * ```
 *  idle ─open─► connecting ─► live ─server ends, run terminal─► closed ◄─┐
 *                   │ terminal snapshot, or 204 ─────────────────────►│
 *                   ▲          │                                       │ 404 past the
 *                   │   drop / error / reset / limit                   │ window, other 4xx
 *                   │          ▼                                       │
 *                   └─backoff─ reconnecting ◄─► offline (navigator)    │
 *                   ▲                                                  │
 *                   └── retry() (or slow backoff) ── unauthorized ◄── 401 / 403
 *
 *  laid over connecting / live / reconnecting (ConnectionStatus):
 *    unreachable — a snapshot load that cannot reach the server, or attempts unanswered
 *                  for unreachableAfterMs / unreachableAfterAttempts; the next answer ends it
 *    waiting     — a request of this client unanswered for waitingAfterMs (never `live` then)
 * ```
 *
 * `retry()` leaves `unauthorized` and `closed` (nothing the app can fix closes for good). A
 * 404 is retried for a while — `notFoundRetryMs` after the first connect for a run this client
 * started (`client.run(id, { started: true })`: it may not be visible yet), `unknownRunRetryMs`
 * for any other — then the connection closes: the run does not exist. Gap reloads beside the
 * stream are one at a time, spaced by the backoff.
 */
export class RunConnection {
  readonly #host: RunStoreHost;
  #session: AbortController | null = null;
  #wake: (() => void) | null = null;
  /** Highest durable revision received on the current connection (to catch one going back). */
  #connectionRevision = 0;
  #firstConnectAt: number | null = null;
  #gapTimer: ReturnType<typeof setTimeout> | undefined;
  #gapAttempt = 0;
  #lastGapReloadAt = Number.NEGATIVE_INFINITY;
  /** Streams that broke off after opening, at one cursor (the dropped-twice rule). */
  readonly #drops = new DropsAtCursor();
  /** The state shown: this loop's, with `waiting` / `unreachable` laid over it. */
  readonly #status: ConnectionStatus;

  constructor(host: RunStoreHost) {
    this.#host = host;
    this.#status = new ConnectionStatus(host);
  }

  /**
   * Follows a request of this client for the run (a snapshot load, a control request): while
   * the browser leaves it unanswered past `waitingAfterMs`, the connection reads `waiting`.
   */
  track<T>(request: Promise<T>): Promise<T> {
    return this.#status.track(request);
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
      let step: 'load' | 'stream' = 'load';
      try {
        const state = this.#host.state();
        const needsLoad = reloadFirst || state.run === null || state.phase === 'gap';
        const failure = needsLoad ? await this.#host.load(signal) : null;
        // Left meanwhile (the last subscriber went): this session must not stream or write.
        if (signal.aborted) return;
        if (failure !== null) throw failure;
        if (needsLoad) this.#status.heard();
        step = 'stream';
        reloadFirst = false;
        if (this.#isComplete()) {
          // A terminal snapshot: nothing will follow, so no event stream is opened at all.
          this.#end(signal, 'closed');
          return;
        }
        const outcome = await this.#stream(signal, withoutLiveCursor, () => {
          opened = true;
          attempt = 0;
        });
        withoutLiveCursor = false;
        if (outcome === 'reset') {
          // The server (or a client limit) wants a fresh start: reload, then resume from R.
          reloadFirst = true;
          withoutLiveCursor = true;
        } else if (outcome === 'finished') {
          // 204: the run has ended and the stream has nothing more. Settle on the terminal
          // snapshot (loaded once if ours is older) and close — no error, no reconnect.
          const loadFailure = this.#isComplete() ? null : await this.#host.load(signal);
          if (signal.aborted) return;
          if (loadFailure !== null) throw loadFailure;
          this.#end(signal, 'closed');
          return;
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
        } else if (!isNotFound(error)) {
          // A 404 inside the window is an answer (the run is not there yet), not a sign of a
          // lost network: waiting for it never turns the connection `unreachable`.
          // A snapshot load that could not reach the server says so at once: the page has
          // nothing else to show. Other failures count towards the threshold.
          this.#status.notReached(step === 'load' && notReached(error) ? 'load' : 'stream');
        } else {
          this.#status.heard();
        }
      }
      // An ended session leaves the state to the next one (a `reset` returns here, not throws).
      if (signal.aborted) return;
      attempt++;
      if (wait === 'unauthorized') {
        // Waits for `retry()`; a slow retry also picks up headers the app refreshed meanwhile.
        this.#setConnection('unauthorized');
        await this.#pause(this.#host.context.reconnect.maxDelayMs, signal);
        attempt = 0;
        continue;
      }
      this.#setConnection(this.#retryState());
      await this.#pause(this.#pauseMs(attempt), signal);
    }
  }

  /**
   * The backoff before the next attempt — cut short at the end of the not-found window while
   * the run is not there, so "does not exist" is said when the window ends, not a backoff later.
   */
  #pauseMs(attempt: number): number {
    const delay = this.#delay(attempt);
    if (!isNotFound(this.#host.state().error)) return delay;
    const left = (this.#firstConnectAt ?? 0) + this.#notFoundWindow() - this.#host.context.now();
    return Math.max(0, Math.min(delay, left));
  }

  /** How long a 404 is retried: the grace of a run this client started, else a short one. */
  #notFoundWindow(): number {
    const { context, runId } = this.#host;
    return context.startedRuns.has(runId) ? context.notFoundRetryMs : context.unknownRunRetryMs;
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
    if (signal.aborted) onSessionAbort();
    else signal.addEventListener('abort', onSessionAbort);
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
    // No stall clock before the answer: a request queued behind the browser's connection
    // limit has sent nothing yet, and aborting it would only put it back at the queue's end.
    // It has no timeout either, for the same reason; unanswered, it reads `waiting`.
    const opened = await this.#status.track(
      openEventStream(context, runId, cursor, withoutLiveCursor, signal),
    );
    this.#status.heard();
    if (opened.kind !== 'open') return opened.kind;
    watch();
    if (signal.aborted) {
      await opened.body.cancel().catch(() => {});
      throw signal.reason;
    }
    this.#connectionRevision = 0;
    onOpen();
    this.#host.commit({ ...this.#host.state(), error: null });
    this.#setConnection('live');

    let batch: EventSourceMessage[] = [];
    const parser = new BoundedSseParser(context.limits.maxEventBytes, (message) =>
      batch.push(message),
    );
    const reader = opened.body.getReader();
    try {
      for (;;) {
        watch();
        const { done, value } = await reader.read();
        if (done) return 'ended';
        this.#status.heard();
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
    const result = applyStreamBatch(this.#host, messages, this.#connectionRevision);
    this.#connectionRevision = result.connectionRevision;
    if (result.revoked !== null) throw result.revoked;
    if (!result.reset && this.#host.state().phase === 'gap') this.#reloadForGap();
    return result.reset;
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
      return since >= this.#notFoundWindow();
    }
    const status = error.status ?? 0;
    return (
      error.kind === 'http' && status >= 400 && status < 500 && status !== 408 && status !== 429
    );
  }

  /** `offline` when the browser says it has no network; `unreachable` is laid over by status. */
  #retryState(): ConnectionState {
    const online = (globalThis as { navigator?: { onLine?: boolean } }).navigator?.onLine;
    return online === false ? 'offline' : 'reconnecting';
  }

  #delay(attempt: number): number {
    return backoffDelay(this.#host.context, attempt);
  }

  /** Waits `ms`, less when `retry()` is called or the browser is back online, or until aborted. */
  #pause(ms: number, signal: AbortSignal): Promise<void> {
    return pauseFor(ms, signal, (wake) => {
      this.#wake = wake;
    });
  }

  #setConnection(connection: ConnectionState): void {
    this.#status.set(connection);
  }
}
