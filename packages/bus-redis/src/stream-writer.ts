import type { RunDeltaEvent, RunEvent } from '@runlight/protocol';
import type { RedisConnection } from './redis-connection';
import { encodeControl, encodeDeltas, encodePointer } from './stream-entry';

/** Deltas one entry carries at most (a stream's `MAXLEN` counts entries). */
const MAX_DELTAS_PER_ENTRY = 256;

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
  /** A command failed: what it carried (deltas, durable pointers) is dropped. */
  onFailure(error: unknown, droppedDeltas: number, droppedPointers: number): void;
  /** Redis answered a command: sending works. */
  onSent(): void;
}

/**
 * The sending side: what is published in one event-loop turn leaves together (`setImmediate`),
 * one `XADD` per run and run of consecutive deltas (up to 256 per entry) or durable pointer, on
 * the run's stream (trimmed with `MAXLEN ~`, which costs nothing per entry), with an expiry so a
 * stream outlives its run only briefly. node-redis writes those commands together (a pipeline),
 * in order, on one connection, and queues them while reconnecting: a short Redis outage delays
 * deltas instead of dropping them. A failed command is reported (with what it carried) and dropped: a lost durable pointer is read from
 * the store at the next one (or at the receivers' catch-up), a lost delta is a `seq` hole the
 * SSE stream turns into a reload.
 */
export class StreamWriter {
  readonly #options: StreamWriterOptions;
  readonly #maxLen: string;
  /** Runs executing here: when their stream's expiry was last set. */
  readonly #active = new Map<string, number>();
  #last: Promise<unknown> = Promise.resolve();
  /** Events of this turn by run, in publish order; sent at `setImmediate`. */
  readonly #pending = new Map<string, RunEvent[]>();
  #scheduled: Promise<void> | null = null;
  readonly #sent = () => this.#options.onSent();

  constructor(options: StreamWriterOptions) {
    this.#options = options;
    this.#maxLen = String(options.maxStreamLength);
  }

  send(event: RunEvent): void {
    let events = this.#pending.get(event.runId);
    if (events === undefined) {
      events = [];
      this.#pending.set(event.runId, events);
    }
    events.push(event);
    this.#scheduled ??= new Promise<void>((resolve) =>
      setImmediate(() => {
        this.#scheduled = null;
        this.#flush();
        resolve();
      }),
    );
  }

  #flush(): void {
    const { keyOf, instanceId, activeTtlSeconds } = this.#options;
    const now = Date.now();
    for (const [runId, events] of this.#pending) {
      const key = keyOf(runId);
      let deltas: RunDeltaEvent[] = [];
      // `carried`: the deltas of the entry; none, a durable pointer.
      const add = (fields: string[], carried: number) =>
        this.#command(
          ['XADD', key, 'MAXLEN', '~', this.#maxLen, '*', ...fields],
          carried,
          carried === 0 ? 1 : 0,
        );
      for (const event of events) {
        if (event.type === 'run-delta') {
          deltas.push(event);
          if (deltas.length < MAX_DELTAS_PER_ENTRY) continue;
        } else if (deltas.length === 0) {
          add(encodePointer(instanceId, event), 0);
          continue;
        }
        add(encodeDeltas(instanceId, deltas), deltas.length);
        deltas = [];
        if (event.type !== 'run-delta') add(encodePointer(instanceId, event), 0);
      }
      if (deltas.length > 0) add(encodeDeltas(instanceId, deltas), deltas.length);
      const setAt = this.#active.get(runId);
      if (setAt === undefined || now - setAt > (activeTtlSeconds * 1_000) / 2) {
        this.#active.set(runId, now);
        this.#command(['EXPIRE', key, String(activeTtlSeconds)]);
      }
    }
    this.#pending.clear();
  }

  /** The run's execution ended here: its stream expires soon (after what is pending). */
  end(runId: string): void {
    if (this.#pending.has(runId)) this.#flush();
    if (!this.#active.delete(runId)) return;
    this.#command(['EXPIRE', this.#options.keyOf(runId), String(this.#options.endedTtlSeconds)]);
  }

  /** An entry on a reader's wake-up stream (kept short, and gone an hour after its last use). */
  wake(key: string): void {
    this.#command(['XADD', key, 'MAXLEN', '~', '16', '*', 'w', '1']);
    this.#command(['EXPIRE', key, '3600']);
  }

  /**
   * An entry on the deployment's control stream: a control request of `runId` was recorded.
   * Sent at once (not with the turn's events): the process executing the run is waiting.
   */
  control(key: string, runId: string): void {
    this.#command([
      'XADD',
      key,
      'MAXLEN',
      '~',
      '1000',
      '*',
      ...encodeControl(this.#options.instanceId, runId),
    ]);
    this.#command(['EXPIRE', key, '86400']);
  }

  /** Resolves once Redis answered every command sent so far (they are answered in order). */
  async flushed(): Promise<void> {
    let last: Promise<unknown>;
    do {
      await this.#scheduled;
      last = this.#last;
      await last;
    } while (last !== this.#last || this.#scheduled !== null);
  }

  /** Sends `args`; a failure is reported with what the command carried. */
  #command(args: string[], deltas = 0, pointers = 0): void {
    this.#last = this.#options.connection.command(args).then(this.#sent, (error: unknown) => {
      // Redis may have restarted empty: set each stream's expiry again with its next entry.
      this.#active.clear();
      this.#options.onFailure(error, deltas, pointers);
    });
  }
}
