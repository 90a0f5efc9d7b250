import { type BusMessage, encodeNotifications, loneNotificationBytes } from './bus-notification';
import type { SqlQueryable } from './sql-client';

export interface NotificationOutboxOptions {
  sql: SqlQueryable;
  channel: string;
  /** The quoted `run_live_deltas` table. */
  liveDeltas: string;
  instanceId: string;
  maxPayloadBytes: number;
  onError: (error: unknown) => void;
}

const SWEEP_EVERY_MS = 60_000;
/** Payloads sent by one statement (≤ 800 kB of them). */
const MAX_PAYLOADS_PER_STATEMENT = 100;

/**
 * The sending side of the event bus. Messages leave in the order they were sent: one flush at
 * a time, each packing what accumulated meanwhile into as few NOTIFY payloads as the limit
 * allows, all sent by one statement (so a fast delta stream costs a round trip per batch, not per
 * delta or per payload). A delta too
 * large for a payload is written to `run_live_deltas` first and its row id travels instead.
 *
 * A failed NOTIFY is reported and dropped: receivers recover durable events from the event log
 * at the next pointer, and a lost delta is a `seq` hole the SSE stream turns into a reload.
 */
export class NotificationOutbox {
  readonly #options: NotificationOutboxOptions;
  #pending: BusMessage[] = [];
  #flushing: Promise<void> | null = null;
  #lastSweep = 0;

  constructor(options: NotificationOutboxOptions) {
    this.#options = options;
  }

  send(message: BusMessage): void {
    this.#pending.push(message);
    this.#flushing ??= this.#flush();
  }

  /** Resolves once every message sent so far has been handed to PostgreSQL. */
  async flushed(): Promise<void> {
    while (this.#flushing) await this.#flushing;
  }

  async #flush(): Promise<void> {
    const { instanceId, maxPayloadBytes } = this.#options;
    try {
      while (this.#pending.length > 0) {
        const batch = this.#pending;
        this.#pending = [];
        const messages: BusMessage[] = [];
        for (const message of batch) messages.push(await this.#fitted(message));
        const payloads = encodeNotifications(instanceId, messages, maxPayloadBytes);
        for (let at = 0; at < payloads.length; at += MAX_PAYLOADS_PER_STATEMENT) {
          await this.#notify(payloads.slice(at, at + MAX_PAYLOADS_PER_STATEMENT));
        }
      }
    } finally {
      this.#flushing = null;
    }
  }

  async #fitted(message: BusMessage): Promise<BusMessage> {
    const { sql, liveDeltas, instanceId, maxPayloadBytes, onError } = this.#options;
    if (message.kind !== 'delta') return message;
    if (loneNotificationBytes(instanceId, message) <= maxPayloadBytes) return message;
    try {
      const [row] = await sql.query<{ id: string }>({
        text: `INSERT INTO ${liveDeltas} (run_id, delta) VALUES ($1, $2::json) RETURNING id::text`,
        values: [message.event.runId, JSON.stringify(message.event)],
      });
      void this.#sweep();
      return { kind: 'delta-row', runId: message.event.runId, id: row!.id };
    } catch (error) {
      onError(error);
      return { kind: 'skip' };
    }
  }

  /**
   * Sends `payloads` in one statement — one round trip however many there are, so a busy
   * process (whose every round trip waits a turn of its event loop) keeps up with a fast delta
   * stream. PostgreSQL evaluates the calls left to right and delivers one transaction's
   * notifications in the order they were made.
   */
  async #notify(payloads: readonly string[]): Promise<void> {
    if (payloads.length === 0) return;
    const calls = payloads.map((_, index) => `pg_notify($1, $${index + 2})`).join(', ');
    try {
      await this.#options.sql.query({
        text: `SELECT ${calls}`,
        values: [this.#options.channel, ...payloads],
      });
    } catch (error) {
      this.#options.onError(error);
    }
  }

  /** Rows of large deltas are read within moments; drop the ones older than five minutes. */
  async #sweep(): Promise<void> {
    if (Date.now() - this.#lastSweep < SWEEP_EVERY_MS) return;
    this.#lastSweep = Date.now();
    try {
      await this.#options.sql.query({
        text: `DELETE FROM ${this.#options.liveDeltas} WHERE created_at < now() - interval '5 minutes'`,
      });
    } catch (error) {
      this.#options.onError(error);
    }
  }
}
