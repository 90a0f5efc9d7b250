import { randomUUID } from 'node:crypto';
import type { RunEventSourceHealth } from '@runlight/runtime';
import { BusHealth, BusTimers } from '@runlight/runtime/driver';
import { ListenTimeoutError } from './listen-timeout-error';
import type { ListenHandle, SqlClient } from './sql-client';

export interface ListenConnectionOptions {
  sql: SqlClient;
  channel: string;
  /** Names the probes, as the bus's notifications: other instances see an empty message list. */
  instanceId: string;
  /** Between the end of one probe and the next; 0 sends none. */
  livenessIntervalMs: number;
  /** How long a probe, a connect or a LISTEN may take before the connection counts as lost. */
  livenessTimeoutMs: number;
  onNotification(payload: string): void;
  onError(error: unknown): void;
  /** LISTEN is active again after a loss: what was published meanwhile must be read. */
  onListeningAgain(): void;
}

/** The first retry after a loss, doubling up to the cap; retries never stop. */
const FIRST_RETRY_MS = 50;
const MAX_RETRY_MS = 5_000;

/**
 * The bus's LISTEN connection, kept alive. It proves it still hears with a probe — a NOTIFY
 * on the bus's own channel sent through the listening connection, which must come back on it
 * within `livenessTimeoutMs` — every `livenessIntervalMs`. A socket error, the connection's end
 * or a failed probe gives the connection up: `health` is `deaf` until a new connection listens
 * (retried with backoff, forever, each failure reported to `onError`), then `onListeningAgain`
 * lets the bus read what it missed from the event log.
 *
 * A probe proves what matters: that this connection both sends and receives, and that LISTEN
 * is still registered on its backend (a pooler may drop it silently).
 *
 * @example
 * const listening = new ListenConnection({ sql, channel, instanceId, livenessIntervalMs: 5_000,
 *   livenessTimeoutMs: 5_000, onNotification, onError, onListeningAgain });
 * await listening.start();
 */
export class ListenConnection {
  readonly #options: ListenConnectionOptions;
  #handle: ListenHandle | null = null;
  /** A connect or LISTEN that timed out but may still finish: the next attempt waits on it. */
  #straggler: Promise<ListenHandle> | null = null;
  readonly #health: BusHealth;
  #reconnecting: Promise<void> | null = null;
  #probeTimer: ReturnType<typeof setTimeout> | null = null;
  /** The payload of the probe in flight and what to call when it comes back. */
  #probe: { payload: string; heard: () => void } | null = null;
  /** Backoff sleeps and timed waits, woken at once by `close`; never keeping a process alive. */
  readonly #timers = new BusTimers({ unref: true });
  #closed = false;

  constructor(options: ListenConnectionOptions) {
    this.#options = options;
    this.#health = new BusHealth(options.onError);
  }

  get health(): RunEventSourceHealth {
    return this.#health.health;
  }

  /** Hears each change of `health`; returns the unsubscribe. */
  onHealthChange(listener: (health: RunEventSourceHealth) => void): () => void {
    return this.#health.onChange(listener);
  }

  /** The first LISTEN; its failure is the caller's (the bus is not created). */
  async start(): Promise<void> {
    this.#handle = await this.#listen();
    this.#scheduleProbe();
  }

  /** Stops probing and reconnecting, then UNLISTENs and returns the connection. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#probeTimer !== null) clearTimeout(this.#probeTimer);
    this.#probeTimer = null;
    this.#timers.wakeAll();
    this.#straggler?.then(
      (late) => late.destroy(new Error('The bus is closed')),
      () => {},
    );
    this.#straggler = null;
    await this.#reconnecting;
    this.#health.clear();
    const handle = this.#handle;
    this.#handle = null;
    if (!handle) return;
    const { livenessTimeoutMs } = this.#options;
    await this.#within(handle.stop(), livenessTimeoutMs, 'UNLISTEN').catch((error: unknown) => {
      handle.destroy(error as Error);
    });
  }

  /**
   * A LISTEN on a connection of its own, within the timeout. One that times out may still
   * finish: it is kept as the straggler and the next attempt takes it, so a hung server never
   * holds more than one of the pool's connections for this.
   */
  #listen(): Promise<ListenHandle> {
    const pending = this.#straggler ?? this.#openListen();
    this.#straggler = null;
    const { livenessTimeoutMs } = this.#options;
    return new Promise<ListenHandle>((resolve, reject) => {
      let timedOut = false;
      const stopWaiting = this.#timers.timer(livenessTimeoutMs, () => {
        timedOut = true;
        this.#straggler = pending;
        reject(new ListenTimeoutError('connecting and LISTEN', livenessTimeoutMs));
      });
      pending.then(
        (handle) => {
          if (timedOut) {
            if (this.#closed) handle.destroy(new Error('The bus is closed'));
            return;
          }
          stopWaiting();
          if (!this.#closed) resolve(handle);
          else {
            handle.stop().catch(() => {});
            reject(new Error('The bus is closed'));
          }
        },
        (error: unknown) => {
          if (this.#straggler === pending) this.#straggler = null;
          if (timedOut) return;
          stopWaiting();
          reject(error);
        },
      );
    });
  }

  #openListen(): Promise<ListenHandle> {
    const { sql, channel } = this.#options;
    let handle: ListenHandle | null = null;
    return sql
      .listen(
        channel,
        (payload) => this.#notified(payload),
        (error) => {
          // Only the connection in use matters; a straggler's end is nobody's loss.
          if (handle !== null && this.#handle === handle) this.#lost(error);
        },
      )
      .then((listening) => {
        handle = listening;
        return listening;
      });
  }

  #notified(payload: string): void {
    const probe = this.#probe;
    if (probe !== null && payload === probe.payload) {
      probe.heard();
      return;
    }
    this.#options.onNotification(payload);
  }

  #scheduleProbe(): void {
    const { livenessIntervalMs } = this.#options;
    if (this.#closed || livenessIntervalMs <= 0) return;
    this.#probeTimer = setTimeout(() => {
      this.#probeTimer = null;
      void this.#sendProbe();
    }, livenessIntervalMs);
    // A probe never keeps a process alive.
    (this.#probeTimer as { unref?: () => void }).unref?.();
  }

  async #sendProbe(): Promise<void> {
    const handle = this.#handle;
    if (this.#closed || handle === null) return;
    const { instanceId, livenessTimeoutMs } = this.#options;
    // An envelope with no message: instances of any version ignore it.
    const payload = JSON.stringify({ instanceId, messages: [], probe: randomUUID() });
    const heard = new Promise<void>((resolve) => {
      this.#probe = { payload, heard: resolve };
    });
    try {
      await this.#within(
        Promise.all([handle.notify(payload), heard]),
        livenessTimeoutMs,
        'a liveness probe',
      );
    } catch (error) {
      if (this.#handle === handle) this.#lost(error);
      return;
    } finally {
      this.#probe = null;
    }
    if (this.#handle === handle) this.#scheduleProbe();
  }

  /** Gives the connection up and listens again, backing off, until it works or `close`. */
  #lost(error: unknown): void {
    if (this.#closed) return;
    this.#options.onError(error);
    if (this.#reconnecting) return;
    if (this.#probeTimer !== null) clearTimeout(this.#probeTimer);
    this.#probeTimer = null;
    this.#handle?.destroy(error instanceof Error ? error : new Error(String(error)));
    this.#handle = null;
    this.#health.set('deaf');
    this.#reconnecting = (async () => {
      for (let delay = FIRST_RETRY_MS; !this.#closed; delay = Math.min(delay * 2, MAX_RETRY_MS)) {
        try {
          this.#handle = await this.#listen();
          break;
        } catch (retryError) {
          if (this.#closed) return;
          this.#options.onError(retryError);
          await this.#sleep(delay);
        }
      }
      if (this.#closed) return;
      this.#health.set('live');
      this.#options.onListeningAgain();
      this.#scheduleProbe();
    })().finally(() => {
      this.#reconnecting = null;
    });
  }

  #sleep(ms: number): Promise<void> {
    return this.#timers.sleep(ms);
  }

  /** `work`, or a `ListenTimeoutError` after `ms` (sooner when closed); `work` may go on. */
  #within<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
    return this.#timers.within(work, ms, () => new ListenTimeoutError(what, ms));
  }
}
