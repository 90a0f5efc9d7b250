import type { ConnectionState } from '../../merge/run-state';
import type { RunStoreHost } from '../run-store-host';

/**
 * The connection state a store shows: the connection loop's own state (`set`) with what the
 * page knows about reaching the server laid over it:
 *
 * ```
 *  connecting / live / reconnecting ── a request of this client unanswered ≥ waitingAfterMs ──► waiting
 *        ▲                                          (until every such request is answered)
 *        │ the server answers (a snapshot, the stream's headers)
 *        │
 *  unreachable ◄── a snapshot load that cannot reach the server, or unanswered attempts for
 *                  unreachableAfterMs / unreachableAfterAttempts in a row (browser online)
 * ```
 *
 * `idle`, `closed`, `unauthorized` and `offline` (the browser says it has no network) are shown
 * as they are: they are answers, or the page's own state. `live` therefore never shows while
 * the browser holds a request of this client unanswered past `waitingAfterMs` — it reads
 * `waiting` ("waiting for a connection": e.g. queued behind the browser's six connections per
 * host). While `unreachable`, the state carries `lastHeardAt`, so a status can freeze the run's
 * time at the last moment it was known instead of ticking on as if it still were.
 */
export class ConnectionStatus {
  readonly #host: RunStoreHost;
  #base: ConnectionState = 'idle';
  #slow = 0;
  #unreachable = false;
  /** Client-clock ms of the server's last answer to this store; null before the first. */
  #lastHeardAt: number | null = null;
  /** When the current run of unanswered attempts began (client clock), or null. */
  #failingSince: number | null = null;
  #failedAttempts = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(host: RunStoreHost) {
    this.#host = host;
  }

  /** The connection loop's own state. */
  set(base: ConnectionState): void {
    this.#base = base;
    if (base === 'idle' || base === 'closed') this.#resetFailures();
    this.#publish();
  }

  /** The server answered this store: not unreachable, whatever came before. */
  heard(): void {
    this.#lastHeardAt = this.#host.context.now();
    // Each chunk of a live stream lands here: nothing to show unless something was failing.
    if (this.#failingSince === null && !this.#unreachable) return;
    this.#resetFailures();
    this.#publish();
  }

  /**
   * An attempt that did not reach the server (network error, timeout, 502 / 503 / 504).
   * `load`: a snapshot load — the page cannot even load the run's state, so it says so at once.
   */
  notReached(what: 'load' | 'stream'): void {
    const { context } = this.#host;
    this.#failedAttempts++;
    this.#failingSince ??= context.now();
    if (
      what === 'load' ||
      this.#failedAttempts >= context.unreachableAfterAttempts ||
      context.now() - this.#failingSince >= context.unreachableAfterMs
    ) {
      this.#markUnreachable();
      return;
    }
    if (this.#timer === undefined) {
      const wait = this.#failingSince + context.unreachableAfterMs - context.now();
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        if (this.#failingSince !== null) this.#markUnreachable();
      }, wait);
    }
  }

  /**
   * Follows one request of this client (a snapshot load, the stream's `fetch`, a control
   * request): unanswered for `waitingAfterMs`, the connection shows `waiting` until it settles.
   */
  track<T>(request: Promise<T>): Promise<T> {
    let counted = false;
    const timer = setTimeout(() => {
      counted = true;
      this.#slow++;
      this.#publish();
    }, this.#host.context.waitingAfterMs);
    const settled = () => {
      clearTimeout(timer);
      if (!counted) return;
      this.#slow--;
      this.#publish();
    };
    request.then(settled, settled);
    return request;
  }

  /** What the store shows now. */
  shown(): ConnectionState {
    const base = this.#base;
    if (base === 'idle' || base === 'closed' || base === 'unauthorized' || base === 'offline') {
      return base;
    }
    if (this.#unreachable) return 'unreachable';
    return this.#slow > 0 ? 'waiting' : base;
  }

  #markUnreachable(): void {
    if (this.#unreachable) return;
    this.#unreachable = true;
    this.#publish();
  }

  #resetFailures(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#failingSince = null;
    this.#failedAttempts = 0;
    this.#unreachable = false;
  }

  #publish(): void {
    const state = this.#host.state();
    const connection = this.shown();
    const lastHeardAt =
      connection === 'unreachable' && this.#lastHeardAt !== null ? this.#lastHeardAt : undefined;
    if (state.connection === connection && state.lastHeardAt === lastHeardAt) return;
    const { lastHeardAt: _previous, ...rest } = state;
    this.#host.commit(
      lastHeardAt === undefined ? { ...rest, connection } : { ...rest, connection, lastHeardAt },
    );
  }
}
