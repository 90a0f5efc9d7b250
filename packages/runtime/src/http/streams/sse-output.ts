import type { RunEvent } from '@runlight/protocol';
import { formatSseMessage, SSE_OPENING } from './format-sse-message';

/**
 * Where an `SseOutput` writes when `toNodeListener` serves it: the `node:http` response itself
 * (no Web stream hop). A subset of `ServerResponse`.
 */
export interface SseNodeSink {
  write(chunk: Uint8Array): boolean;
  end(): void;
  destroy(): void;
  /** Bytes the response holds that the socket has not taken yet. */
  readonly writableLength: number;
  readonly destroyed: boolean;
}

/** What the Web `ReadableStream` path holds before backpressure shows (as before). */
const HIGH_WATER_MARK = 64 * 1024;

const encoder = new TextEncoder();
const OPENING = encoder.encode(SSE_OPENING);

/** Outputs written to in this task; flushed together once it (and its microtasks) ran. */
let dirty: SseOutput[] = [];
let flushScheduled = false;

function flushDirty(): void {
  flushScheduled = false;
  const outputs = dirty;
  dirty = [];
  for (const output of outputs) output.flush();
}

/** Bodies `toNodeListener` may write directly, by the `ReadableStream` the Response carries. */
const direct = new WeakMap<ReadableStream<Uint8Array>, SseOutput>();

/**
 * The output of one SSE client. Messages written during one task of the event loop (a publish,
 * a bus notification, a catch-up read, with the microtasks they start) go out as one write
 * after it: a burst — a catch-up, a batch of deltas from the bus, a delta with what it
 * triggers — costs one write and one syscall, and a task with one message writes that
 * message's shared bytes without copying them. (A microtask, not `setImmediate`: it runs in
 * every host, and fake timers do not hold it back.)
 *
 * It is a Web `ReadableStream` (`readable`) for any host; `toNodeListener` instead attaches the
 * `node:http` response (`attach`) and the bytes skip the stream. `unreadBytes` is what waits
 * for the client either way, for the per-client cap (and a global one across clients).
 *
 * @example
 * const output = new SseOutput({ onCancel: () => unsubscribe() });
 * output.write(encodedMessage);
 * return new Response(output.readable, { headers });
 */
export class SseOutput {
  readonly readable: ReadableStream<Uint8Array>;
  readonly #onCancel: () => void;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #sink: SseNodeSink | null = null;
  /** This turn's messages: the first apart, so the one-message turn allocates nothing. */
  #first: Uint8Array | null = null;
  #more: Uint8Array[] | null = null;
  #pendingBytes = 0;
  #scheduled = false;
  #wroteToStream = false;
  /** Set once `close`/`error` ran: nothing more is written. */
  #ended = false;
  /** Close after the pending bytes are flushed. */
  #closing = false;
  #finished: (() => void) | null = null;

  readonly #opening: boolean;

  /** `opening`: write `SSE_OPENING` first (a response of its own; not a run inside a multiplexed stream). */
  constructor(options: { onCancel: () => void; opening?: boolean }) {
    this.#onCancel = options.onCancel;
    this.#opening = options.opening ?? false;
    this.readable = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.#controller = controller;
          // Outside the turn's batching (and not `#wroteToStream`): `toNodeListener` may still
          // attach and writes the same bytes to the response first.
          if (this.#opening) controller.enqueue(OPENING);
        },
        cancel: () => this.#cancelled(),
      },
      new ByteLengthQueuingStrategy({ highWaterMark: HIGH_WATER_MARK }),
    );
    direct.set(this.readable, this);
  }

  /** Queues `bytes` (never mutated afterwards: shared message bytes are written as they are). */
  write(bytes: Uint8Array): void {
    if (this.#ended || this.#closing) return;
    if (this.#first === null) this.#first = bytes;
    else if (this.#more === null) this.#more = [bytes];
    else this.#more.push(bytes);
    this.#pendingBytes += bytes.byteLength;
    if (!this.#scheduled) {
      this.#scheduled = true;
      dirty.push(this);
      if (!flushScheduled) {
        flushScheduled = true;
        queueMicrotask(flushDirty);
      }
    }
  }

  /** Bytes written that the client has not read yet (this turn's, and those buffered). */
  unreadBytes(): number {
    if (this.#sink) return this.#pendingBytes + this.#sink.writableLength;
    const desired = this.#controller.desiredSize ?? 0;
    return this.#pendingBytes + Math.max(0, HIGH_WATER_MARK - desired);
  }

  /** Hands this turn's bytes to the response or the stream (called at the end of the turn). */
  flush(): void {
    this.#scheduled = false;
    const chunk = this.#take();
    if (chunk !== null && !this.#ended) {
      if (this.#sink) {
        if (!this.#sink.destroyed) this.#sink.write(chunk);
      } else {
        this.#wroteToStream = true;
        this.#controller.enqueue(chunk);
      }
    }
    if (this.#closing) this.#end();
  }

  /** Ends the stream once what was written is flushed. */
  close(): void {
    if (this.#ended || this.#closing) return;
    this.#closing = true;
    if (!this.#scheduled) this.flush();
  }

  /** Ends the stream abruptly; unflushed bytes are dropped. */
  error(reason: Error): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#take();
    if (this.#sink) this.#sink.destroy();
    else {
      try {
        this.#controller.error(reason);
      } catch {
        // Already closed.
      }
    }
    this.#done();
  }

  /**
   * Writes to `sink` from now on instead of `readable` (which stays unread); false when the
   * stream already carries bytes or was taken. Resolves `finished` when the output ends.
   */
  attach(sink: SseNodeSink): { finished: Promise<void>; cancel: () => void } | null {
    if (this.#wroteToStream || this.#ended || this.#sink !== null || this.readable.locked) {
      return null;
    }
    this.#sink = sink;
    if (this.#opening) sink.write(OPENING);
    const finished = new Promise<void>((resolve) => {
      this.#finished = resolve;
    });
    return { finished, cancel: () => this.#cancelled() };
  }

  #take(): Uint8Array | null {
    const first = this.#first;
    const more = this.#more;
    this.#first = null;
    this.#more = null;
    const total = this.#pendingBytes;
    this.#pendingBytes = 0;
    if (first === null || more === null) return first;
    const joined = new Uint8Array(total);
    joined.set(first, 0);
    let offset = first.byteLength;
    for (const bytes of more) {
      joined.set(bytes, offset);
      offset += bytes.byteLength;
    }
    return joined;
  }

  #end(): void {
    if (this.#ended) return;
    this.#ended = true;
    if (this.#sink) this.#sink.end();
    else {
      try {
        this.#controller.close();
      } catch {
        // Already cancelled by the client.
      }
    }
    this.#done();
  }

  #cancelled(): void {
    this.#ended = true;
    this.#take();
    this.#onCancel();
    this.#done();
  }

  #done(): void {
    const finished = this.#finished;
    this.#finished = null;
    finished?.();
  }
}

/** The `SseOutput` behind a Response body, for `toNodeListener`'s direct path. */
export function sseOutputOf(body: ReadableStream<Uint8Array>): SseOutput | undefined {
  return direct.get(body);
}

/**
 * The encoded SSE message of a published event at cursor `id`. Published events are never
 * mutated (the hub hands the same object to every listener), so the JSON is made once per
 * event and the bytes once per event and cursor: the clients of a run that are caught up share
 * one message, and a write of it copies nothing.
 */
export function sseMessageBytes(event: RunEvent, id: string): Uint8Array {
  return sseMessageWithin(event, id, Number.POSITIVE_INFINITY) as Uint8Array;
}

/**
 * `sseMessageBytes`, or — when the message would be larger than `maxBytes` — its size in
 * bytes (a number), with nothing of it kept: an event too large to send is serialised once
 * to learn so, and neither its JSON nor its bytes stay cached.
 */
export function sseMessageWithin(
  event: RunEvent,
  id: string,
  maxBytes: number,
): Uint8Array | number {
  let entry = messages.get(event);
  if (entry !== undefined && entry.size > maxBytes) return entry.size;
  // Refused under a smaller limit before (another handlers instance): serialised again.
  if (entry?.json === null) entry = undefined;
  if (entry === undefined) {
    const json = JSON.stringify(event);
    const bytes = encoder.encode(formatSseMessage(event.type, id, json));
    if (bytes.byteLength > maxBytes) {
      messages.set(event, { json: null, id, bytes: null, size: bytes.byteLength });
      return bytes.byteLength;
    }
    entry = { json, id, bytes, size: bytes.byteLength };
    messages.set(event, entry);
  } else if (entry.id !== id) {
    // Another cursor (a client that joined elsewhere): the latest one is kept.
    entry.id = id;
    entry.bytes = encoder.encode(formatSseMessage(event.type, id, entry.json as string));
  }
  return entry.bytes as Uint8Array;
}

const messages = new WeakMap<
  RunEvent,
  { json: string | null; id: string; bytes: Uint8Array | null; size: number }
>();

/** Encodes a message that is this client's own (a reset, a ping). */
export function encodeSse(text: string): Uint8Array {
  return encoder.encode(text);
}
