import type { RunSnapshot } from '@runlight/protocol';
import { RunNotFoundError } from '../../errors/run-not-found-error';
import type { RunEventSource } from '../../events/event-hub';
import type { AgentRuntimeStore } from '../../store/agent-runtime-store';
import type { StreamReauthorization } from '../access/access-policy';
import { formatSseMessage, SSE_OPENING, SSE_PING } from './format-sse-message';
import type { RunCursor } from './run-cursor';
import { RunEventStream } from './run-event-stream';

/** One run of a multiplexed subscription: where its client stands. */
export interface RunSubscription {
  runId: string;
  cursor: RunCursor;
  /**
   * Re-asks this run's access while it is followed; a refusal ends this run only (its
   * `unauthorized` message, then `run-end`), the others keep streaming.
   */
  reauthorize?: StreamReauthorization;
}

/** A run the multiplexed stream could not follow: the status and code its own route answers. */
export interface RunSubscriptionRefusal {
  runId: string;
  status: number;
  code: string;
}

export interface MultiplexedEventStreamOptions {
  store: Pick<AgentRuntimeStore, 'getSnapshot' | 'readEvents'>;
  source: RunEventSource;
  heartbeatMs: number;
  maxQueuedBytes: number;
  /** See `RunEventStreamOptions.maxEventBytes`. */
  maxEventBytes?: number;
  /** See `RunEventStreamOptions.exposeInternals`. Default `false`. */
  exposeInternals?: boolean;
  signal?: AbortSignal;
  onError: (error: unknown) => void;
}

const encoder = new TextEncoder();
/** The per-run streams never ping: the multiplexed stream pings once for all of them. */
const NO_HEARTBEAT = 2 ** 31 - 1;

/**
 * Many runs' event streams on one SSE response. Each run is a `RunEventStream` of its own — the
 * same catch-up from its cursor, dedupe, gap reads and `reset` — whose messages are forwarded
 * unchanged (their `data` names the run; their `id` is that run's cursor). Around them:
 *
 * - `event: run-open` `data: {"runId"}` — the run's stream is open (its catch-up follows);
 * - `event: run-error` `data: {"runId","status","code"}` — the run cannot be followed (what its
 *   own events route would answer: 404 `run_not_found`, 403 `forbidden`);
 * - `event: unauthorized` `data: {"type","runId","status","code"}` — a re-check of the run's
 *   access refused it (forwarded from its stream like `reset`); `run-end` follows;
 * - `event: run-end` `data: {"runId"}` — the run's stream ended (terminal run, or after `reset`);
 *   the client resumes it, if it still wants it, on a new subscription;
 * - one `: ping` per idle `heartbeatMs` for the whole connection.
 *
 * A client that stops reading while more than `maxQueuedBytes` wait is disconnected; it
 * resumes every run from its own cursor.
 */
export class MultiplexedEventStream {
  readonly readable: ReadableStream<Uint8Array>;
  readonly #options: MultiplexedEventStreamOptions;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  readonly #runs = new Set<RunEventStream>();
  #heartbeat: ReturnType<typeof setInterval> | null = null;
  #wroteSinceTick = false;
  #closed = false;
  #sealed = false;

  constructor(options: MultiplexedEventStreamOptions) {
    this.#options = options;
    this.readable = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.#controller = controller;
          // Headers and a first byte at once, on every host (see `SSE_OPENING`).
          controller.enqueue(encoder.encode(SSE_OPENING));
        },
        cancel: () => this.dispose(),
      },
      new ByteLengthQueuingStrategy({ highWaterMark: 64 * 1024 }),
    );
    if (options.signal?.aborted) this.dispose();
    else options.signal?.addEventListener('abort', this.#onAbort);
    this.#heartbeat = setInterval(this.#tick, options.heartbeatMs);
    (this.#heartbeat as { unref?: () => void }).unref?.();
  }

  /** Follows `subscription` on this connection (subscribes before reading the store). */
  add(subscription: RunSubscription): void {
    if (this.#closed) return;
    const { store, source, maxQueuedBytes, maxEventBytes, exposeInternals, onError } =
      this.#options;
    const { runId, cursor, reauthorize } = subscription;
    const stream = new RunEventStream({
      runId,
      store,
      source,
      cursor,
      heartbeatMs: NO_HEARTBEAT,
      opening: false,
      maxQueuedBytes,
      ...(maxEventBytes === undefined ? {} : { maxEventBytes }),
      exposeInternals: exposeInternals === true,
      onError,
      ...(reauthorize ? { reauthorize } : {}),
    });
    this.#runs.add(stream);
    void this.#follow(runId, stream);
  }

  /** Tells the client a run is refused (e.g. not authorized) without opening it. */
  refuse(refusal: RunSubscriptionRefusal): void {
    this.#event('run-error', refusal);
  }

  /** No more runs will be added: the response ends once every run's stream has ended. */
  seal(): void {
    this.#sealed = true;
    this.#closeIfDone();
  }

  #closeIfDone(): void {
    if (!this.#sealed || this.#runs.size > 0 || this.#closed) return;
    this.dispose();
    try {
      this.#controller.close();
    } catch {
      // Already cancelled.
    }
  }

  /** Ends every run's stream, the heartbeat and the response; idempotent. */
  dispose(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const stream of this.#runs) stream.dispose();
    this.#runs.clear();
    if (this.#heartbeat !== null) clearInterval(this.#heartbeat);
    this.#heartbeat = null;
    this.#options.signal?.removeEventListener('abort', this.#onAbort);
  }

  readonly #onAbort = () => {
    this.dispose();
    try {
      this.#controller.error(new Error('The client went away'));
    } catch {
      // Already closed.
    }
  };

  async #follow(runId: string, stream: RunEventStream): Promise<void> {
    let snapshot: RunSnapshot;
    try {
      snapshot = await this.#options.store.getSnapshot(runId);
    } catch (error) {
      stream.dispose();
      this.#runs.delete(stream);
      if (RunNotFoundError.isInstance(error)) {
        this.#event('run-error', { runId, status: 404, code: 'run_not_found' });
      } else {
        this.#options.onError(error);
        this.#event('run-error', { runId, status: 500, code: 'internal' });
      }
      this.#closeIfDone();
      return;
    }
    if (this.#closed) {
      stream.dispose();
      return;
    }
    this.#event('run-open', { runId });
    stream.start(snapshot);
    const reader = stream.readable.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done || this.#closed) break;
        this.#write(value);
      }
    } catch {
      // The run's stream failed (its own limits): the client resumes it from its cursor.
    } finally {
      this.#runs.delete(stream);
      stream.dispose();
      this.#event('run-end', { runId });
      this.#closeIfDone();
    }
  }

  #event(type: string, data: unknown): void {
    this.#write(encoder.encode(formatSseMessage(type, null, JSON.stringify(data))));
  }

  readonly #tick = () => {
    // No ping while the source is deaf (as `RunEventStream`): the client's stall timer fires.
    if (!this.#wroteSinceTick && this.#options.source.health?.() !== 'deaf') {
      this.#write(encoder.encode(SSE_PING));
    }
    this.#wroteSinceTick = false;
  };

  #write(bytes: Uint8Array): void {
    if (this.#closed) return;
    const controller = this.#controller;
    if ((controller.desiredSize ?? 0) < -this.#options.maxQueuedBytes) {
      this.dispose();
      controller.error(new Error('The client is not reading the stream'));
      return;
    }
    controller.enqueue(bytes);
    this.#wroteSinceTick = true;
  }
}
