import type { RunEvent } from '@runlight/protocol';
import type { RedisConnection } from './redis-connection';
import { encodeEntry } from './stream-entry';

export interface StreamWriterOptions {
  connection: RedisConnection;
  keyOf(runId: string): string;
  instanceId: string;
  /** `XADD … MAXLEN ~`: entries kept per run stream, at least. */
  maxStreamLength: number;
  /** The expiry of a stream while its run executes here (refreshed at half of it). */
  activeTtlSeconds: number;
  /** The expiry once its execution ended here. */
  endedTtlSeconds: number;
  onError(error: unknown): void;
}

/**
 * The sending side: one `XADD` per event on the run's stream (trimmed with `MAXLEN ~`, which
 * costs nothing per entry), with an expiry so a stream outlives its run only briefly. node-redis
 * writes the commands of one event-loop turn together (a pipeline), in order, on one
 * connection, and queues them while reconnecting: a short Redis outage delays deltas instead of
 * dropping them. A failed command is reported and dropped: a lost durable pointer is read from
 * the store at the next one (or at the receivers' catch-up), a lost delta is a `seq` hole the
 * SSE stream turns into a reload.
 */
export class StreamWriter {
  readonly #options: StreamWriterOptions;
  readonly #maxLen: string;
  /** Runs executing here: when their stream's expiry was last set. */
  readonly #active = new Map<string, number>();
  #last: Promise<unknown> = Promise.resolve();
  readonly #report = (error: unknown) => {
    // Redis may have restarted empty: set each stream's expiry again with its next entry.
    this.#active.clear();
    this.#options.onError(error);
  };

  constructor(options: StreamWriterOptions) {
    this.#options = options;
    this.#maxLen = String(options.maxStreamLength);
  }

  send(event: RunEvent): void {
    const { keyOf, instanceId, activeTtlSeconds } = this.#options;
    const key = keyOf(event.runId);
    this.#command([
      'XADD',
      key,
      'MAXLEN',
      '~',
      this.#maxLen,
      '*',
      ...encodeEntry(instanceId, event),
    ]);
    const now = Date.now();
    const setAt = this.#active.get(event.runId);
    if (setAt === undefined || now - setAt > (activeTtlSeconds * 1_000) / 2) {
      this.#active.set(event.runId, now);
      this.#command(['EXPIRE', key, String(activeTtlSeconds)]);
    }
  }

  /** The run's execution ended here: its stream expires soon. */
  end(runId: string): void {
    if (!this.#active.delete(runId)) return;
    this.#command(['EXPIRE', this.#options.keyOf(runId), String(this.#options.endedTtlSeconds)]);
  }

  /** An entry on a reader's wake-up stream (kept short, and gone an hour after its last use). */
  wake(key: string): void {
    this.#command(['XADD', key, 'MAXLEN', '~', '16', '*', 'w', '1']);
    this.#command(['EXPIRE', key, '3600']);
  }

  /** Resolves once Redis answered every command sent so far (they are answered in order). */
  async flushed(): Promise<void> {
    let last: Promise<unknown>;
    do {
      last = this.#last;
      await last;
    } while (last !== this.#last);
  }

  #command(args: string[]): void {
    this.#last = this.#options.connection.command(args).catch(this.#report);
  }
}
