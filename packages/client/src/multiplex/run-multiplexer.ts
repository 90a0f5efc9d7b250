import { createParser, type EventSourceMessage } from 'eventsource-parser';

export interface RunMultiplexerOptions {
  /** Where the run handlers are mounted (the multiplexed stream is `{baseUrl}/run-events`). */
  baseUrl: string;
  fetch: typeof globalThis.fetch;
  /** The set of runs settles this long before the connection is re-opened. Default 10 ms. */
  reopenDelayMs?: number;
}

/** One run's share of the multiplexed connection, as its store sees it: an SSE response. */
interface Share {
  runId: string;
  /** The run's cursor: what its store sent, then the id of each message forwarded to it. */
  cursor: string;
  /** Until the server opens (or refuses) the run. */
  respond: ((response: Response) => void) | null;
  fail: (error: unknown) => void;
  controller: ReadableStreamDefaultController<Uint8Array> | null;
  ended: boolean;
  /**
   * The shared connection whose request named this share (`null` until one does). Only its
   * messages reach the share: a run that left and joined again must not take the rest of the
   * old request's stream for it (nor its `run-end`) while it waits for the re-open.
   */
  connection: AbortController | null;
}

const encoder = new TextEncoder();
const SSE_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8' };
const EVENTS_PATH = /\/runs\/([^/]+)\/events$/;

function sseText(message: EventSourceMessage): string {
  const id = message.id === undefined ? '' : `id: ${message.id}\n`;
  return `event: ${message.event ?? 'message'}\n${id}data: ${message.data}\n\n`;
}

/**
 * Shares ONE event-stream connection (`GET {baseUrl}/run-events?run=<id>@<cursor>&…`) among the
 * stores of every run a page follows. It stands in for `fetch`: a store's
 * `GET …/runs/:id/events` (with its `Last-Event-ID` cursor) joins the shared connection and gets
 * back a response whose body carries only that run's messages, so each store keeps all its own
 * rules — merge, cursor, reset, backoff, stall — unchanged. When the set of runs changes, the
 * connection is re-opened (after `reopenDelayMs`, so a page mounting twenty runs opens one) with
 * each run's cursor as of the last message forwarded to it: nothing is sent twice or skipped.
 * An `event-ref` (an event above the server's `maxEventBytes`) is forwarded like any message:
 * the store fetches the event itself (`…/runs/:id/events/:revision` passes through to `fetch`).
 * A store that leaves (its last subscriber unmounted, e.g. scrolled out of view) cancels its
 * body and stops costing the connection anything. A broken connection errors every run's body;
 * the stores back off and rejoin.
 */
export class RunMultiplexer {
  readonly #options: RunMultiplexerOptions;
  readonly #shares = new Map<string, Share>();
  #connection: AbortController | null = null;
  #reopen: ReturnType<typeof setTimeout> | undefined;
  #opened = 0;
  /** The headers and credentials of the stores' own requests (e.g. authorization), minus cursor. */
  #init: { headers: Headers; credentials?: RequestCredentials } = { headers: new Headers() };

  constructor(options: RunMultiplexerOptions) {
    this.#options = { ...options, baseUrl: options.baseUrl.replace(/\/+$/, '') };
  }

  /** `fetch`, with each run's events request served from the shared connection. */
  readonly fetch: typeof globalThis.fetch = (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const match = url.startsWith(this.#options.baseUrl)
      ? EVENTS_PATH.exec(url.split('?')[0]!)
      : null;
    if (match === null || (init?.method ?? 'GET') !== 'GET')
      return this.#options.fetch(input, init);
    const headers = new Headers(init?.headers);
    const cursor = headers.get('last-event-id') ?? '0';
    headers.delete('last-event-id');
    headers.set('accept', 'text/event-stream');
    // The shared connection carries what the stores' requests carry (they share one client).
    this.#init = { headers, ...(init?.credentials ? { credentials: init.credentials } : {}) };
    return this.#join(decodeURIComponent(match[1]!), cursor, init?.signal ?? undefined);
  };

  /** The runs on the shared connection now. */
  runIds(): string[] {
    return [...this.#shares.keys()];
  }

  /** How many times the shared connection was opened (for tests and diagnostics). */
  get connectionsOpened(): number {
    return this.#opened;
  }

  /** Ends the shared connection and every run's body. */
  close(): void {
    clearTimeout(this.#reopen);
    this.#connection?.abort();
    this.#connection = null;
    for (const share of [...this.#shares.values()])
      this.#end(share, new TypeError('network: closed'));
  }

  #join(runId: string, cursor: string, signal: AbortSignal | undefined): Promise<Response> {
    const previous = this.#shares.get(runId);
    if (previous) this.#end(previous, new TypeError('network: replaced by a newer request'));
    return new Promise<Response>((resolve, reject) => {
      const share: Share = {
        runId,
        cursor,
        respond: resolve,
        fail: reject,
        controller: null,
        ended: false,
        connection: null,
      };
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      signal?.addEventListener(
        'abort',
        () => {
          if (this.#shares.get(runId) !== share) return;
          this.#end(share, signal.reason);
          this.#schedule();
        },
        { once: true },
      );
      this.#shares.set(runId, share);
      this.#schedule();
    });
  }

  #schedule(): void {
    clearTimeout(this.#reopen);
    this.#reopen = setTimeout(() => this.#open(), this.#options.reopenDelayMs ?? 10);
  }

  /** (Re-)opens the shared connection for the current set of runs. */
  #open(): void {
    this.#reopen = undefined;
    this.#connection?.abort();
    this.#connection = null;
    if (this.#shares.size === 0) return;
    const connection = new AbortController();
    this.#connection = connection;
    this.#opened++;
    const shares = [...this.#shares.values()];
    for (const share of shares) share.connection = connection;
    const query = shares
      .map((share) => `run=${encodeURIComponent(`${share.runId}@${share.cursor}`)}`)
      .join('&');
    void this.#read(connection, `${this.#options.baseUrl}/run-events?${query}`);
  }

  async #read(connection: AbortController, url: string): Promise<void> {
    const { signal } = connection;
    try {
      const response = await this.#options.fetch(url, { ...this.#init, signal });
      if (!response.ok || response.body === null) {
        const text = await response.text().catch(() => '');
        // The request as a whole was refused: every waiting run gets that answer.
        for (const share of [...this.#shares.values()]) {
          if (share.respond && share.connection === connection) {
            share.respond(
              new Response(text, { status: response.status, headers: response.headers }),
            );
            this.#shares.delete(share.runId);
          }
        }
        throw new TypeError(`network: the multiplexed stream answered HTTP ${response.status}`);
      }
      const parser = createParser({
        onEvent: (message) => this.#route(connection, message),
        onComment: () => this.#ping(connection),
      });
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (signal.aborted) return;
          if (done) throw new TypeError('network: the multiplexed stream ended');
          parser.feed(value);
        }
      } finally {
        reader.cancel().catch(() => {});
      }
    } catch (error) {
      if (signal.aborted || this.#connection !== connection) return;
      this.#connection = null;
      for (const share of [...this.#shares.values()]) this.#end(share, error);
    }
  }

  #route(connection: AbortController, message: EventSourceMessage): void {
    let runId: unknown;
    try {
      runId = (JSON.parse(message.data) as { runId?: unknown }).runId;
    } catch {
      return;
    }
    const share = typeof runId === 'string' ? this.#shares.get(runId) : undefined;
    if (share === undefined || share.connection !== connection) return;
    if (message.event === 'run-open') {
      this.#respond(share);
      return;
    }
    if (message.event === 'run-error') {
      const { status, code } = JSON.parse(message.data) as { status: number; code: string };
      this.#shares.delete(share.runId);
      share.ended = true;
      const body = { error: { code, message: `Run ${share.runId}: ${code}` } };
      share.respond?.(Response.json(body, { status }));
      this.#closeIfEmpty();
      return;
    }
    if (message.event === 'run-end') {
      // The server ended this run's stream (terminal, or after a reset): so does its body.
      this.#shares.delete(share.runId);
      share.ended = true;
      // Never left waiting: a run that ends before it opened is retried by its store.
      if (share.respond) share.fail(new TypeError('network: the run ended before it opened'));
      try {
        share.controller?.close();
      } catch {
        // Already cancelled.
      }
      this.#closeIfEmpty();
      return;
    }
    if (message.id !== undefined) share.cursor = message.id;
    share.controller?.enqueue(encoder.encode(sseText(message)));
  }

  /** No run left on the connection: end it (a run that joins later re-opens one). */
  #closeIfEmpty(): void {
    if (this.#shares.size > 0 || this.#reopen !== undefined) return;
    this.#connection?.abort();
    this.#connection = null;
  }

  #respond(share: Share): void {
    const respond = share.respond;
    if (respond === null) return;
    share.respond = null;
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        share.controller = controller;
      },
      cancel: () => {
        if (this.#shares.get(share.runId) !== share) return;
        this.#shares.delete(share.runId);
        share.ended = true;
        this.#schedule();
      },
    });
    respond(new Response(body, { status: 200, headers: SSE_HEADERS }));
  }

  /** A heartbeat of the shared connection is a heartbeat of every run on it. */
  #ping(connection: AbortController): void {
    const ping = encoder.encode(': ping\n\n');
    for (const share of this.#shares.values()) {
      if (share.connection === connection) share.controller?.enqueue(ping);
    }
  }

  #end(share: Share, error: unknown): void {
    if (this.#shares.get(share.runId) === share) this.#shares.delete(share.runId);
    if (share.ended) return;
    share.ended = true;
    if (share.respond) share.fail(error);
    else {
      try {
        share.controller?.error(error);
      } catch {
        // Already closed.
      }
    }
  }
}
