/** The high-water mark of each event stream's queue: what a reader that keeps up may hold. */
export const SSE_HIGH_WATER_BYTES = 64 * 1024;

export interface SseBufferLimits {
  /** One client's unread bytes above which it is dropped. */
  maxQueuedBytes: number;
  /** A client with unread bytes that reads nothing for this long is dropped. */
  idleTimeoutMs: number;
  now?: () => number;
}

/**
 * The bytes buffered for slow SSE readers across every stream of one handlers instance, with a
 * total cap and a fair share of it for each reader: while the total stays under `maxBytes`
 * any client may hold a backlog (up to its own `maxQueuedBytes`); beyond it, only a client
 * whose backlog exceeds its **fair share** — `maxBytes / open streams`, and never less than
 * the stream's high-water mark (the floor every reader is guaranteed) — is dropped at its next
 * write and resumes from its cursor.
 *
 * Why a share and not "any backlog above the high-water mark": a reader that keeps up still
 * holds a whole burst for a moment (200 KiB written in one task sit unread until the task
 * ends), so once paused readers had filled the total, such bursts dropped healthy readers
 * too. Readers within their share hold at most `maxBytes` together, so when the total is
 * over, someone is above their share — the paused readers, who are the ones dropped.
 *
 * @example
 * const budget = new SseBufferBudget(64 * 1024 * 1024);
 * const account = budget.open({ maxQueuedBytes: 8 << 20, idleTimeoutMs: 60_000 });
 */
export class SseBufferBudget {
  readonly maxBytes: number;
  #bufferedBytes = 0;
  #readers = 0;

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  /** Bytes queued right now for every open stream (as last reported by each). */
  get bufferedBytes(): number {
    return this.#bufferedBytes;
  }

  /** Streams open now (each holds an account). */
  get readers(): number {
    return this.#readers;
  }

  /**
   * What one reader may hold and never be dropped for the total: an equal part of `maxBytes`,
   * at least the high-water mark.
   */
  fairShare(): number {
    return Math.max(SSE_HIGH_WATER_BYTES, Math.floor(this.maxBytes / Math.max(1, this.#readers)));
  }

  /** The account of one new stream. */
  open(limits: SseBufferLimits): SseReaderAccount {
    this.#readers++;
    return new SseReaderAccount(this, limits);
  }

  /** @internal An account closed. */
  release(): void {
    this.#readers--;
  }

  /** @internal */
  adjust(delta: number): void {
    this.#bufferedBytes += delta;
  }
}

/**
 * One stream's share of the budget. The stream reports its queue size (from the controller's
 * `desiredSize`) on every write, on every pull and at every heartbeat; the account answers
 * why the client must be dropped, or `null`.
 */
export class SseReaderAccount {
  readonly #budget: SseBufferBudget;
  readonly #limits: SseBufferLimits;
  readonly #now: () => number;
  #reported = 0;
  /** Bytes ever enqueued; minus the queue, what the client has read so far. */
  #enqueued = 0;
  #readAtLastCheck = 0;
  #stalledSince: number | null = null;
  #closed = false;

  constructor(budget: SseBufferBudget, limits: SseBufferLimits) {
    this.#budget = budget;
    this.#limits = limits;
    this.#now = limits.now ?? Date.now;
  }

  /** Before enqueuing `bytes` on a queue holding `queued`: a reason to drop, or `null`. */
  beforeWrite(queued: number, bytes: number): string | null {
    if (queued > this.#limits.maxQueuedBytes) return 'the client is not reading the stream';
    this.#report(queued + bytes);
    this.#enqueued += bytes;
    if (this.#budget.bufferedBytes > this.#budget.maxBytes && queued > this.#budget.fairShare()) {
      return 'the server holds too many unread bytes for slow clients';
    }
    return null;
  }

  /** The queue shrank (the stream was pulled). */
  settle(queued: number): void {
    this.#report(queued);
  }

  /** At each heartbeat: a reason to drop a client that read nothing for `idleTimeoutMs`. */
  check(queued: number): string | null {
    this.#report(queued);
    const read = this.#enqueued - queued;
    if (queued <= 0 || read > this.#readAtLastCheck) {
      this.#readAtLastCheck = read;
      this.#stalledSince = queued <= 0 ? null : this.#now();
      return null;
    }
    this.#stalledSince ??= this.#now();
    return this.#now() - this.#stalledSince >= this.#limits.idleTimeoutMs
      ? `the client read nothing for ${this.#limits.idleTimeoutMs} ms`
      : null;
  }

  /** Returns this stream's bytes to the budget; idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#report(0);
    this.#closed = true;
    this.#budget.release();
  }

  #report(queued: number): void {
    if (this.#closed) return;
    const value = Math.max(0, queued);
    this.#budget.adjust(value - this.#reported);
    this.#reported = value;
  }
}
