import type { RunEventSourceHealth } from '@runlight/runtime';
import { BusHealth, BusTimers } from '@runlight/runtime/driver';
import { RedisBusTimeoutError } from './redis-bus-timeout-error';
import { type RedisConnection, reconnectDelayMs } from './redis-connection';

/** One entry of an `XREAD` reply: its id and its flat field-value pairs. */
export type StreamEntry = [id: string, fields: string[]];

export interface StreamReaderOptions {
  /** The reader's own connection, not connected yet: a blocking `XREAD` holds it. */
  createConnection(): RedisConnection;
  /** This reader's wake-up stream: an entry there makes a blocked `XREAD` return. */
  wakeKey: string;
  /**
   * The deployment's control stream (every process reads it): read from its last entry at
   * `start` on, each entry handed to `onControl`.
   */
  controlKey: string;
  /** How long one `XREAD` blocks: every reply, even an empty one, proves the connection hears. */
  blockMs: number;
  /** How much longer than `blockMs` a reply may take before the connection counts as lost. */
  timeoutMs: number;
  /** Entries read per stream and reply. */
  count: number;
  /**
   * After a reply with entries (none of its streams full), how long to wait before the next
   * read: entries arriving meanwhile come in one reply, so a busy process makes a few hundred
   * reads a second, not one per entry. 0: read again at once.
   */
  readIntervalMs: number;
  onEntries(key: string, entries: readonly StreamEntry[]): void;
  onControl(entries: readonly StreamEntry[]): void;
  /** Anything that went wrong but a loss (an entry a handler could not take). */
  onError(error: unknown): void;
  /** A socket error, a failed read or a late reply: the reader is deaf until `onHearingAgain`. */
  onLoss(error: unknown): void;
  /** A reply came back after a loss: what was published meanwhile may be missing. */
  onHearingAgain(): void;
}

/**
 * The fan-in of one process: a single `XREAD BLOCK` over the streams of every run followed
 * here, each from the id of the last entry read (catch-up by entry id after any pause), plus
 * the reader's wake-up stream, written to when a run starts being followed so the next read
 * names it, and the deployment's control stream (a control request was recorded somewhere),
 * read from its last entry when the reader started.
 *
 * Liveness: a reply (entries, or none after `blockMs`) must come within `blockMs + timeoutMs`.
 * A socket error, a failed read or a late reply makes `health` `deaf` (reported to `onLoss`);
 * a late one also replaces the connection (a hung server, a half-open socket). A read is
 * retried as soon as its connection is ready again (node-redis reconnects with
 * `reconnectDelayMs`, at most `RECONNECT_DELAY_CAP_MS` apart), on a ready connection after the
 * same backoff, forever; the first read after a loss does not block, and its reply makes it
 * `live` and calls `onHearingAgain`. So a reader hears again at most one capped delay after
 * Redis is back, whatever streams it follows.
 */
export class StreamReader {
  readonly #options: StreamReaderOptions;
  readonly #cursors = new Map<string, string>();
  /** The wake-up stream is this reader's alone: from its start. */
  #wakeId = '0-0';
  /** Set at `start`: what was recorded before this process started is not its news. */
  #controlId = '0-0';
  #connection: RedisConnection | null = null;
  readonly #health: BusHealth;
  #loop: Promise<void> | null = null;
  #closed = false;
  /** Backoff sleeps and reply deadlines, woken at once by `close`. */
  readonly #timers = new BusTimers();

  constructor(options: StreamReaderOptions) {
    this.#options = options;
    this.#health = new BusHealth(options.onError);
  }

  get health(): RunEventSourceHealth {
    return this.#health.health;
  }

  onHealthChange(listener: (health: RunEventSourceHealth) => void): () => void {
    return this.#health.onChange(listener);
  }

  /** Connects (a failure is the caller's: no bus) and starts reading. */
  async start(): Promise<void> {
    const connection = this.#create();
    try {
      await this.#within(connection.connect(), this.#options.timeoutMs, 'connecting');
      const [last] = await this.#within(
        connection.command<StreamEntry[]>([
          'XREVRANGE',
          this.#options.controlKey,
          '+',
          '-',
          'COUNT',
          '1',
        ]),
        this.#options.timeoutMs,
        'reading the control stream',
      );
      if (last !== undefined) this.#controlId = last[0];
    } catch (error) {
      connection.destroy();
      throw error;
    }
    this.#loop = this.#read();
  }

  /** Whether `key` is read. */
  follows(key: string): boolean {
    return this.#cursors.has(key);
  }

  /** Reads `key` from its first entry on; returns false when it was followed already. */
  follow(key: string): boolean {
    if (this.#cursors.has(key)) return false;
    this.#cursors.set(key, '0-0');
    return true;
  }

  unfollow(key: string): void {
    this.#cursors.delete(key);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#timers.wakeAll();
    this.#connection?.destroy();
    this.#connection = null;
    await this.#loop;
    this.#health.clear();
  }

  /** A new connection, current from now on (so `close` ends it, connected or not). */
  #create(): RedisConnection {
    const connection = this.#options.createConnection();
    connection.onLoss((error) => {
      if (this.#connection === connection) this.#lost(error);
    });
    this.#connection = connection;
    return connection;
  }

  async #read(): Promise<void> {
    const { blockMs, timeoutMs, count } = this.#options;
    let failures = 0;
    while (!this.#closed) {
      const connection = this.#connection;
      try {
        if (connection === null) {
          // Retries on its own (each failure an 'error': `onLoss`) until it connects or `close`.
          await this.#create().connect();
          continue;
        }
        const keys = [this.#options.wakeKey, this.#options.controlKey, ...this.#cursors.keys()];
        const ids = [this.#wakeId, this.#controlId, ...this.#cursors.values()];
        // Not hearing yet (started, or after a loss): a read that answers at once, so health is
        // live again within a reply of Redis answering — not when a block of `blockMs` over
        // streams nothing is written to expires (a runner follows none while it is idle).
        const block = this.#health.health === 'live' ? ['BLOCK', String(blockMs)] : [];
        const reply = await this.#within(
          connection.command<[string, StreamEntry[]][] | null>([
            'XREAD',
            'COUNT',
            String(count),
            ...block,
            'STREAMS',
            ...keys,
            ...ids,
          ]),
          blockMs + timeoutMs,
          'a blocking XREAD',
        );
        if (this.#closed) return;
        failures = 0;
        if (this.#health.set('live')) this.#options.onHearingAgain();
        let full = false;
        for (const [key, entries] of reply ?? []) {
          this.#take(key, entries);
          full ||= entries.length >= count;
        }
        if (reply !== null && !full && this.#options.readIntervalMs > 0) {
          await this.#sleep(this.#options.readIntervalMs);
        }
      } catch (error) {
        if (this.#closed) return;
        this.#lost(error);
        if (error instanceof RedisBusTimeoutError && this.#connection === connection) {
          // A hung server or a half-open socket: this connection never answers again.
          connection?.destroy();
          this.#connection = null;
        }
        const current = this.#connection;
        if (current !== null && current === connection && !current.isReady()) {
          // Reconnecting: read again the moment it is ready (its backoff is capped).
          await this.#untilReady(current, blockMs + timeoutMs);
        } else await this.#sleep(reconnectDelayMs(failures++));
      }
    }
  }

  #take(key: string, entries: readonly StreamEntry[]): void {
    const last = entries.at(-1);
    if (last === undefined) return;
    if (key === this.#options.wakeKey) {
      this.#wakeId = last[0];
      return;
    }
    if (key !== this.#options.controlKey && !this.#cursors.has(key)) return; // unfollowed meanwhile
    try {
      if (key === this.#options.controlKey) {
        this.#controlId = last[0];
        this.#options.onControl(entries);
      } else {
        this.#cursors.set(key, last[0]);
        this.#options.onEntries(key, entries);
      }
    } catch (error) {
      this.#options.onError(error);
    }
  }

  #lost(error: unknown): void {
    if (this.#closed) return;
    this.#options.onLoss(error);
    this.#health.set('deaf');
  }

  /**
   * Resolves when `connection` is ready again, at once on `close`, or after `ms` (the loop
   * then tries again: a connection that stopped reconnecting fails fast and is waited on anew).
   */
  #untilReady(connection: RedisConnection, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        stopHearing();
        stopTimer();
        resolve();
      };
      const stopHearing = connection.onReady(done);
      const stopTimer = this.#timers.timer(ms, done);
    });
  }

  #sleep(ms: number): Promise<void> {
    return this.#timers.sleep(ms);
  }

  /** `work`, or a `RedisBusTimeoutError` after `ms` (at once when closed); `work` may go on. */
  #within<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
    return this.#timers.within(work, ms, () => new RedisBusTimeoutError(what, ms));
  }
}
