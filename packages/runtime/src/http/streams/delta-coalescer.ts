import { MAX_RUN_DELTA_BATCH, type RunDeltaEvent } from '@runlight/protocol';
import { formatSseMessage } from './format-sse-message';
import { encodeSse, sseMessageWithin } from './sse-output';

/** Chunk types that continue a part (text, reasoning, a tool call's input) already shown. */
const CONTINUATIONS = new Set(['text-delta', 'reasoning-delta', 'tool-input-delta']);

/** Room left in a `run-deltas` message for its envelope and `id` line. */
const ENVELOPE_BYTES = 512;

/** The JSON of each delta's chunk, made once per published delta for every client. */
const chunkJson = new WeakMap<object, string>();

/**
 * The last `run-deltas` message made ending with each delta: the caught-up clients of a run
 * hold the same deltas in the same windows, so they share one message's bytes.
 */
const batches = new WeakMap<object, { first: RunDeltaEvent; cursor: string; bytes: Uint8Array }>();

const partOf = (chunk: RunDeltaEvent['chunk']): string | undefined =>
  (chunk as { id?: string }).id ?? (chunk as { toolCallId?: string }).toolCallId;

/**
 * Wire coalescing of one client's live deltas (`coalesceDeltasMs`, for a client that sent
 * `Accept: text/event-stream; deltas=batched`): a delta that continues the part the previous
 * one streamed (`text-delta`, `reasoning-delta`, `tool-input-delta` of the same id, the next
 * `seq` on the same write) waits up to `windowMs`, and the deltas that waited go out as one
 * `run-deltas` message (protocol `RunDeltaBatchSchema`; one waiting delta goes as the usual
 * `run-delta`). The first delta of a run, of a step or of a part — and anything else — is never
 * delayed: the stream flushes what waits before it writes anything.
 */
export class DeltaCoalescer {
  readonly #windowMs: number;
  readonly #maxBytes: number;
  readonly #write: (bytes: Uint8Array) => void;
  /** The last delta this stream sent or holds: a delta continuing it may wait. */
  #last: RunDeltaEvent | null = null;
  #held: RunDeltaEvent[] = [];
  #heldBytes = 0;
  /** The cursor after the last held delta: the batch's `id`. */
  #cursor = '';
  #timer: ReturnType<typeof setTimeout> | null = null;

  constructor(windowMs: number, maxEventBytes: number, write: (bytes: Uint8Array) => void) {
    this.#windowMs = windowMs;
    this.#maxBytes = maxEventBytes - ENVELOPE_BYTES;
    this.#write = write;
  }

  /**
   * Holds `delta` (in its wire form; `cursor` the stream's cursor after it) when it continues
   * the previous one; false when it must go now (the caller flushes, then sends it).
   */
  offer(delta: RunDeltaEvent, cursor: string): boolean {
    const last = this.#last;
    this.#last = delta;
    if (
      last === null ||
      !CONTINUATIONS.has(delta.chunk.type) ||
      delta.chunk.type !== last.chunk.type ||
      partOf(delta.chunk) !== partOf(last.chunk) ||
      delta.baseRevision !== last.baseRevision ||
      delta.seq !== last.seq + 1 ||
      delta.fencingToken !== last.fencingToken
    ) {
      return false;
    }
    let json = chunkJson.get(delta);
    if (json === undefined) {
      json = JSON.stringify(delta.chunk);
      chunkJson.set(delta, json);
    }
    if (json.length > this.#maxBytes) return false; // the stream's own size rule decides
    if (
      this.#heldBytes + json.length + 1 > this.#maxBytes ||
      this.#held.length >= MAX_RUN_DELTA_BATCH
    ) {
      this.flush();
    }
    this.#held.push(delta);
    this.#heldBytes += json.length + 1;
    this.#cursor = cursor;
    if (this.#timer === null) {
      this.#timer = setTimeout(this.#onTimer, this.#windowMs);
      (this.#timer as { unref?: () => void }).unref?.();
    }
    return true;
  }

  /** A delta the stream sent itself (not offered, or refused): what the next one continues. */
  sent(delta: RunDeltaEvent): void {
    this.#last = delta;
  }

  /** Forgets the part in progress (a durable event was sent: the next delta starts anew). */
  reset(): void {
    this.#last = null;
  }

  /** Writes what waits, as one message. */
  flush(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    const held = this.#held;
    if (held.length === 0) return;
    this.#held = [];
    this.#heldBytes = 0;
    if (held.length === 1) {
      this.#write(sseMessageWithin(held[0]!, this.#cursor, Number.POSITIVE_INFINITY) as Uint8Array);
      return;
    }
    const first = held[0]!;
    const last = held.at(-1)!;
    const shared = batches.get(last);
    if (shared !== undefined && shared.first === first && shared.cursor === this.#cursor) {
      this.#write(shared.bytes);
      return;
    }
    const chunks = held.map((delta) => chunkJson.get(delta)!).join(',');
    const token = first.fencingToken === undefined ? '' : `"fencingToken":${first.fencingToken},`;
    const json = `{"type":"run-deltas","runId":${JSON.stringify(first.runId)},"baseRevision":${first.baseRevision},"seq":${first.seq},${token}"chunks":[${chunks}]}`;
    const bytes = encodeSse(formatSseMessage('run-deltas', this.#cursor, json));
    batches.set(last, { first, cursor: this.#cursor, bytes });
    this.#write(bytes);
  }

  /** Drops what waits and the timer (the stream ended). */
  dispose(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    this.#held = [];
  }

  readonly #onTimer = () => {
    this.#timer = null;
    this.flush();
  };
}
