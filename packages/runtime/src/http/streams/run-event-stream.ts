import {
  type DurableRunEvent,
  isAssistantEvent,
  isTerminalStatus,
  type RunDeltaEvent,
  type RunEvent,
  type RunReset,
  type RunSnapshot,
} from '@runlight/protocol';
import { StreamAccessWatch } from '../access/stream-access-watch';
import { isClientGone } from './client-gone';
import { DeltaCoalescer } from './delta-coalescer';
import { SSE_PING } from './format-sse-message';
import { missingDeltas, resumeHeldDelta } from './live-buffer';
import { publicEvent } from './public-form';
import type { RunEventStreamOptions } from './run-event-stream-options';
import type { SseReaderAccount } from './sse-buffer-budget';
import { eventRefBytes } from './sse-event-size';
import { encodeSse, SseOutput, sseMessageWithin } from './sse-output';
import { resetMessage, unauthorizedMessage } from './stream-orders';

/** The body of an SSE `reset` event (`RunReset` of the protocol): reload the snapshot. */
export type RunResetEvent = RunReset;

export type { RunEventStreamOptions } from './run-event-stream-options';

const PING = encodeSse(SSE_PING);

/**
 * One client's SSE stream of one run: the durable events after its cursor from the store's
 * event log, then the live deltas still buffered after it, then live events as they are
 * published — with no gap and no duplicate.
 *
 * It subscribes on construction, *before* the caller reads the store, and queues what arrives.
 * Every event then goes through one pump in publish order with two guards:
 * - durable events are deduplicated by revision, and one that skips revisions not yet sent
 *   first reads the missing ones from the store;
 * - deltas apply only on the latest checkpoint sent (older bases are inside it), are
 *   deduplicated by `(baseRevision, seq)`, and a hole in `seq` is filled from the live buffer or
 *   ends the stream with `reset`.
 *
 * During catch-up, queued deltas are skipped: the live buffer read at the end of catch-up holds
 * every delta on the current checkpoint published so far, in `seq` order.
 */
export class RunEventStream {
  readonly readable: ReadableStream<Uint8Array>;
  readonly #options: RunEventStreamOptions;
  readonly #maxEventBytes: number;
  /** Coalesces the messages of one event-loop turn into one write (see `SseOutput`). */
  readonly #output: SseOutput;
  /** With `coalesceDeltasMs`: the deltas that continue a part wait to share a message. */
  readonly #coalescer: DeltaCoalescer | null;
  #unsubscribe: (() => void) | null;
  #heartbeat: ReturnType<typeof setInterval> | null = null;
  #pending: RunEvent[] = [];
  #live = false;
  #pumping = false;
  #closed = false;
  #wroteSinceTick = false;
  /** This stream's share of the slow-reader budget (sse-buffer-budget.ts). */
  readonly #account: SseReaderAccount | null;
  /** Highest durable revision sent (or held by the client). */
  #revision: number;
  /** Last delta sent (or held by the client) on top of `#checkpointRevision`. */
  #delta: { baseRevision: number; seq: number } | null;
  /** Revision of the latest assistant checkpoint the client holds or was sent (0: none). */
  #checkpointRevision = 0;
  /** A checkpoint whose deltas are not sent: this process lacks some of them. */
  #skipBase: number | null = null;
  /** Revision of the run's terminal status event, once known. */
  #terminalRevision: number | null = null;
  #access: StreamAccessWatch | null = null;
  /** The newest acquisition known: a delta of an older one is a previous owner's. */
  #fencingToken = 0;

  constructor(options: RunEventStreamOptions) {
    this.#options = options;
    this.#maxEventBytes = options.maxEventBytes ?? Number.POSITIVE_INFINITY;
    this.#revision = options.cursor.revision;
    this.#delta = options.cursor.delta;
    this.#account =
      options.budget?.open({
        maxQueuedBytes: options.maxQueuedBytes,
        idleTimeoutMs: options.idleTimeoutMs ?? Number.POSITIVE_INFINITY,
      }) ?? null;
    const opening = options.opening !== false;
    this.#output = new SseOutput({ onCancel: () => this.dispose(), opening });
    const windowMs = options.coalesceDeltasMs ?? 0;
    const writeNow = (bytes: Uint8Array) => this.#writeNow(bytes);
    this.#coalescer =
      windowMs > 0 ? new DeltaCoalescer(windowMs, this.#maxEventBytes, writeNow) : null;
    this.readable = this.#output.readable;
    this.#unsubscribe = options.source.subscribe(options.runId, (event) => this.#receive(event));
    if (options.signal?.aborted) this.dispose();
    else options.signal?.addEventListener('abort', this.#onAbort);
    if (options.reauthorize && !this.#closed) {
      this.#access = new StreamAccessWatch(options.reauthorize, {
        revoked: ({ status, code }) => {
          this.#write(unauthorizedMessage(options.runId, status, code));
          this.#close();
        },
        failed: (error) => (error === undefined ? this.#close() : this.#fail(error)),
      });
    }
  }

  /** Starts the catch-up from `snapshot`, read after this stream subscribed. */
  start(snapshot: RunSnapshot): void {
    if (this.#closed) return;
    this.#catchUp(snapshot).catch((error: unknown) => this.#fail(error));
  }

  /** Releases the subscription and the heartbeat; idempotent. */
  dispose(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#pending = [];
    this.#unsubscribe?.();
    this.#unsubscribe = null;
    if (this.#heartbeat !== null) clearInterval(this.#heartbeat);
    this.#heartbeat = null;
    this.#access?.stop();
    this.#coalescer?.dispose();
    this.#account?.close();
    this.#options.signal?.removeEventListener('abort', this.#onAbort);
  }

  readonly #onAbort = () => {
    // A client going away is an ordinary end: the body closes instead of erroring, so a host
    // (Hono, a Node adapter) has no error to log (client-gone.ts).
    this.#close();
  };

  async #catchUp(snapshot: RunSnapshot): Promise<void> {
    const { store, runId } = this.#options;
    if (this.#revision > snapshot.revision) {
      this.#reset(`the cursor revision is newer than the run's revision ${snapshot.revision}`);
      return;
    }
    this.#checkpointRevision = snapshot.assistant?.revision ?? 0;
    this.#fencingToken = snapshot.run.fencingToken;
    if (isTerminalStatus(snapshot.run.status)) this.#terminalRevision = snapshot.revision;

    for (const event of await store.readEvents(runId, { afterRevision: this.#revision })) {
      this.#sendDurable(event);
      if (this.#closed) return;
    }
    // Durable events published since we subscribed, in order; a gap reads the store.
    while (this.#pending.length > 0) {
      const event = this.#pending.shift()!;
      if (event.type !== 'run-delta') await this.#handleDurable(event);
      if (this.#closed) return;
    }
    if (this.#finishIfTerminal()) return;

    // The sync point: nothing is pending, so the buffer read now and the events published from
    // now on are contiguous.
    const buffer = this.#options.source.liveDeltas(runId);
    const resume = this.#delta && resumeHeldDelta(buffer, this.#delta, this.#checkpointRevision);
    if (typeof resume === 'object' && resume !== null) return this.#reset(resume.reset);
    if (resume === 'drop') this.#delta = null;
    const onBase = buffer.filter(
      (d) => d.baseRevision === this.#checkpointRevision && !this.#previousOwners(d),
    );
    if (this.#delta === null && !onBase.every((d, i) => d.seq === i + 1)) {
      // This process does not hold the text so far on the checkpoint (its bus joined late or
      // lost a delta). A reset would only bring the client back here; it waits for the next
      // checkpoint instead, which holds that text.
      this.#skipBase = this.#checkpointRevision;
    }
    this.#pending = [...onBase];
    this.#live = true;
    this.#heartbeat = setInterval(this.#tick, this.#options.heartbeatMs);
    // Do not keep a process alive for a heartbeat.
    (this.#heartbeat as { unref?: () => void }).unref?.();
    this.#wroteSinceTick = false;
    this.#pump();
  }

  #receive(event: RunEvent): void {
    if (this.#closed) return;
    if (this.#live && !this.#pumping && this.#pending.length === 0) {
      // The hot path: nothing queued, handle the event in place.
      const wait = this.#handle(event);
      if (wait) this.#await(wait);
      return;
    }
    this.#pending.push(event);
    if (this.#live && !this.#pumping) this.#pump();
  }

  #pump(): void {
    while (!this.#closed && this.#pending.length > 0) {
      const wait = this.#handle(this.#pending.shift()!);
      if (wait) {
        this.#await(wait);
        return;
      }
    }
  }

  #await(wait: Promise<void>): void {
    this.#pumping = true;
    wait.then(
      () => {
        this.#pumping = false;
        this.#pump();
      },
      (error: unknown) => this.#fail(error),
    );
  }

  /** Handles one event; returns a promise only when it must read the store first. */
  #handle(event: RunEvent): Promise<void> | undefined {
    return event.type === 'run-delta' ? this.#handleDelta(event) : this.#handleDurable(event);
  }

  #handleDurable(event: DurableRunEvent): Promise<void> | undefined {
    if (event.revision <= this.#revision) return undefined;
    if (event.revision === this.#revision + 1) {
      this.#sendDurable(event);
      return undefined;
    }
    return this.#readStore().then(() => {
      if (this.#closed || event.revision <= this.#revision) return;
      if (event.revision === this.#revision + 1) this.#sendDurable(event);
      else this.#reset(`revisions ${this.#revision + 1}..${event.revision - 1} are not stored`);
    });
  }

  #handleDelta(delta: RunDeltaEvent): Promise<void> | undefined {
    if (this.#terminalRevision !== null || this.#previousOwners(delta)) return undefined;
    // A newer acquisition's delta before its `run-status` reached this process: from now on
    // the older owner's are the previous one's.
    if (delta.fencingToken !== undefined && delta.fencingToken > this.#fencingToken) {
      this.#fencingToken = delta.fencingToken;
    }
    const base = delta.baseRevision;
    if (base < this.#checkpointRevision || base === this.#skipBase) return undefined;
    if (base > this.#checkpointRevision) {
      if (base <= this.#revision) return undefined; // not a checkpoint of this run
      // Its checkpoint was published but has not reached us: read it from the store first.
      return this.#readStore().then(() => {
        if (!this.#closed && base === this.#checkpointRevision) return this.#handleDelta(delta);
      });
    }
    const last = this.#delta?.baseRevision === base ? this.#delta.seq : 0;
    if (delta.seq <= last) return undefined; // duplicate
    if (delta.seq > last + 1 && !this.#fillDeltas(base, last, delta.seq)) return undefined;
    this.#sendDelta(delta);
    return undefined;
  }

  /** A delta of an older acquisition: a previous owner's, published after the takeover. */
  #previousOwners(delta: RunDeltaEvent): boolean {
    return delta.fencingToken !== undefined && delta.fencingToken < this.#fencingToken;
  }

  /** Sends the buffered deltas strictly between `last` and `seq`; resets when one is gone. */
  #fillDeltas(base: number, last: number, seq: number): boolean {
    const buffer = this.#options.source.liveDeltas(this.#options.runId);
    const missing = missingDeltas(buffer, base, last, seq);
    if (missing === null) {
      this.#reset(
        `live deltas ${last + 1}..${seq - 1} on checkpoint ${base} are no longer buffered`,
      );
      return false;
    }
    for (const d of missing) this.#sendDelta(d);
    return true;
  }

  async #readStore(): Promise<void> {
    const { store, runId } = this.#options;
    const events = await store.readEvents(runId, { afterRevision: this.#revision });
    for (const event of events) {
      if (this.#closed) return;
      if (event.revision === this.#revision + 1) this.#sendDurable(event);
    }
  }

  #sendDurable(event: DurableRunEvent): void {
    this.#revision = event.revision;
    if (isAssistantEvent(event)) {
      this.#checkpointRevision = event.revision;
      this.#delta = null; // an assistant write holds every delta before it
    } else if (event.type === 'run-status' && isTerminalStatus(event.status)) {
      this.#terminalRevision = event.revision;
    } else if (event.type === 'run-status') {
      this.#fencingToken = Math.max(this.#fencingToken, event.fencingToken);
      // An acquisition ends the client's overlay (SPEC.md rule 3.5): the deltas since the last
      // write were the previous owner's, never made durable; the new owner writes first.
      if (event.change === 'acquired') this.#delta = null;
    }
    this.#coalescer?.reset();
    const cursor = this.#cursor();
    const message = sseMessageWithin(this.#wire(event), cursor, this.#maxEventBytes);
    // Too large for one message a client can take: a reference it fetches instead.
    this.#write(typeof message === 'number' ? eventRefBytes(event, cursor, message) : message);
    this.#finishIfTerminal();
  }

  #sendDelta(delta: RunDeltaEvent): void {
    // A delta after one too large to send (e.g. later in a `#fillDeltas` run): none on this base.
    if (delta.baseRevision === this.#skipBase) return;
    const previous = this.#delta;
    this.#delta = delta; // its baseRevision and seq: no object per client and delta
    const wire = this.#wire(delta);
    if (this.#coalescer?.offer(wire, this.#cursor())) {
      this.#wroteSinceTick = true;
      return;
    }
    const bytes = sseMessageWithin(wire, this.#cursor(), this.#maxEventBytes);
    if (typeof bytes === 'number') {
      // Deltas are not stored, so there is nothing to refer to: none more is sent on this
      // checkpoint — the next assistant write holds this chunk (as an `event-ref` if large).
      this.#delta = previous;
      this.#skipBase = delta.baseRevision;
      return;
    }
    this.#write(bytes);
    this.#coalescer?.sent(wire);
  }

  /** What is sent of `event`: as stored with `exposeInternals`, else its public form. */
  #wire<E extends RunEvent>(event: E): E {
    return this.#options.exposeInternals ? event : publicEvent(event);
  }

  /** The `RunCursor` text of what was sent so far (as `formatRunCursor`, without an object). */
  #cursor(): string {
    const delta = this.#delta;
    return delta ? `${this.#revision}:${delta.baseRevision}:${delta.seq}` : `${this.#revision}`;
  }

  /** Ends the stream once every durable event up to the terminal revision is sent. */
  #finishIfTerminal(): boolean {
    if (this.#terminalRevision === null || this.#revision < this.#terminalRevision) return false;
    this.#close();
    return true;
  }

  #reset(reason: string): void {
    this.#write(resetMessage(this.#options.runId, reason));
    this.#close();
  }

  readonly #tick = () => {
    const idle = this.#account?.check(this.#output.unreadBytes());
    if (idle) {
      this.#drop(idle);
      return;
    }
    // A deaf source (its bus lost its connection) must not tell the client all is well: without
    // pings its stall timer fires and it reconnects, reading the store (see http/README.md).
    if (!this.#wroteSinceTick && this.#options.source.health?.() !== 'deaf') this.#write(PING);
    this.#wroteSinceTick = false;
  };

  /** Writes `bytes` after the deltas that wait (so in publish order). */
  #write(bytes: Uint8Array): void {
    this.#coalescer?.flush();
    this.#writeNow(bytes);
  }

  #writeNow(bytes: Uint8Array): void {
    if (this.#closed) return;
    // A client that stopped reading is dropped rather than buffered without bound (alone, or
    // with the others past the handlers' shared budget); it resumes from its last cursor.
    const queued = this.#output.unreadBytes();
    const alone =
      queued > this.#options.maxQueuedBytes ? 'the client is not reading the stream' : null;
    const drop = this.#account ? this.#account.beforeWrite(queued, bytes.byteLength) : alone;
    if (drop) {
      this.#drop(drop);
      return;
    }
    this.#output.write(bytes);
    this.#wroteSinceTick = true;
  }

  /** Ends the stream with an error: the adapter closes the client's socket at once. */
  #drop(reason: string): void {
    this.dispose();
    this.#output.error(new Error(`Dropped: ${reason}`));
  }

  #close(): void {
    if (this.#closed) return;
    this.#coalescer?.flush();
    this.dispose();
    this.#output.close();
  }

  #fail(error: unknown): void {
    if (this.#closed) return;
    if (!isClientGone(error, this.#options.signal)) this.#options.onError(error);
    this.#close();
  }
}
