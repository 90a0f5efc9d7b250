import { createParser } from 'eventsource-parser';
import {
  advance,
  covers,
  formatPosition,
  parsePosition,
  type StreamMessage,
  type StreamPosition,
} from './stream-position';

/** What a run's stream says to one watcher: a message, or a comment (`: ping`, `: open`). */
export type HubFrame = StreamMessage | { comment: string };

/** One watcher of a run on the leading tab: a store of this tab, or a follower tab's. */
export interface HubWatcher {
  position: StreamPosition;
  /** Set once the watcher has its `200`; a re-opened stream does not answer it again. */
  opened: boolean;
  /** The stream answered `200 text/event-stream`. */
  open(): void;
  /** The stream answered anything else (a 204, a 404, a 401…): passed on as it came. */
  answer(status: number, contentType: string | null, body: string): void;
  deliver(frames: HubFrame[]): void;
  /** The stream ended (`error` undefined) or broke off. */
  end(error?: unknown): void;
}

/** How a hub opens the run's real stream (`GET …/runs/:id/events`, `Last-Event-ID: cursor`). */
export type OpenRunStream = (cursor: string, signal: AbortSignal) => Promise<Response>;

/** The stream's recent messages a joining watcher is served from, at most this many. */
const LOG_LIMIT = 1_000;
/**
 * A stream that sends nothing, not even the server's heartbeat (15 s), this long is dead: it
 * breaks off, and every watcher's store resumes (the stores' own stall timers would not help:
 * each re-joins this hub, which would keep reading the dead stream).
 */
const STALL_MS = 45_000;

/**
 * The one stream of one run on the leading tab, shared by every watcher of the run in every
 * tab. A watcher joining is served from the stream's recent messages when they cover where it
 * stands (`covers`); otherwise the stream is re-opened at its cursor, and the watchers further
 * on drop what they already hold (`advance`). So each watcher gets every message after its own
 * cursor exactly once, wherever the stream began.
 */
export class RunHub {
  readonly #open: OpenRunStream;
  readonly #watchers = new Set<HubWatcher>();
  #upstream: AbortController | null = null;
  /** Where the current stream began, advanced past messages dropped from `#log`. */
  #logStart: StreamPosition = { revision: 0, base: null, seq: 0 };
  #log: StreamMessage[] = [];
  #answered = false;
  /** Opened streams, for tests and diagnostics. */
  opened = 0;
  readonly #onEmpty: () => void;

  constructor(open: OpenRunStream, onEmpty: () => void) {
    this.#open = open;
    this.#onEmpty = onEmpty;
  }

  get size(): number {
    return this.#watchers.size;
  }

  add(watcher: HubWatcher): void {
    this.#watchers.add(watcher);
    if (this.#upstream !== null && covers(this.#logStart, watcher.position)) {
      if (this.#answered && !watcher.opened) watcher.open();
      const frames: HubFrame[] = [];
      for (const message of this.#log) {
        const next = advance(watcher.position, message);
        if (next === null) continue;
        watcher.position = next;
        frames.push(message);
      }
      if (frames.length > 0) watcher.deliver(frames);
      return;
    }
    // Nothing open, or it began past this watcher: (re-)open where the watcher stands. The
    // others are further on and drop what they hold.
    this.#start(watcher.position);
  }

  remove(watcher: HubWatcher): void {
    if (!this.#watchers.delete(watcher)) return;
    if (this.#watchers.size > 0) return;
    this.close();
    this.#onEmpty();
  }

  /** Ends the stream; the watchers are left as they are (the caller ends or moves them). */
  close(): void {
    this.#upstream?.abort();
    this.#upstream = null;
  }

  #start(position: StreamPosition): void {
    this.#upstream?.abort();
    const upstream = new AbortController();
    this.#upstream = upstream;
    this.#logStart = position;
    this.#log = [];
    this.#answered = false;
    this.opened++;
    void this.#read(upstream, formatPosition(position));
  }

  async #read(upstream: AbortController, cursor: string): Promise<void> {
    const { signal } = upstream;
    const current = () => this.#upstream === upstream && !signal.aborted;
    try {
      const response = await this.#open(cursor, signal);
      if (!current()) {
        await response.body?.cancel().catch(() => {});
        return;
      }
      const type = response.headers.get('content-type');
      if (response.status !== 200 || response.body === null) {
        const body = await response.text().catch(() => '');
        if (!current()) return;
        this.#upstream = null;
        for (const watcher of [...this.#watchers]) {
          this.#watchers.delete(watcher);
          // A watcher already streaming cannot be answered again: it reconnects and asks.
          if (watcher.opened) watcher.end(new TypeError(`network: HTTP ${response.status}`));
          else watcher.answer(response.status, type, body);
        }
        this.#onEmpty();
        return;
      }
      this.#answered = true;
      for (const watcher of this.#watchers) if (!watcher.opened) watcher.open();
      const parser = createParser({
        onEvent: (event) => {
          const message: StreamMessage = {
            event: event.event ?? 'message',
            data: event.data,
            ...(event.id === undefined ? {} : { id: event.id }),
          };
          this.#forward(message);
        },
        onComment: (comment) => {
          for (const watcher of this.#watchers) watcher.deliver([{ comment }]);
        },
      });
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let stall: ReturnType<typeof setTimeout> | undefined;
      let stalled = false;
      const watch = () => {
        clearTimeout(stall);
        stall = setTimeout(() => {
          stalled = true;
          reader.cancel().catch(() => {});
        }, STALL_MS);
      };
      try {
        for (;;) {
          watch();
          const { done, value } = await reader.read();
          if (!current()) return;
          if (stalled) throw new TypeError('network: the stream sent nothing, not even a ping');
          if (done) break;
          parser.feed(value);
        }
      } finally {
        clearTimeout(stall);
        reader.cancel().catch(() => {});
      }
      // The server ended it (the run's end, or a reset): each watcher's body ends the same way.
      this.#finish(upstream, undefined);
    } catch (error) {
      if (!current()) return;
      this.#finish(upstream, error);
    }
  }

  #forward(message: StreamMessage): void {
    if (message.id !== undefined && parsePosition(message.id) !== null) {
      this.#log.push(message);
      if (this.#log.length > LOG_LIMIT) {
        const dropped = this.#log.shift()!;
        this.#logStart = advance(this.#logStart, dropped) ?? this.#logStart;
      }
    }
    for (const watcher of this.#watchers) {
      const next = advance(watcher.position, message);
      if (next === null) continue;
      watcher.position = next;
      watcher.deliver([message]);
    }
  }

  /** The stream ended or broke: so does every watcher's (each store resumes from its cursor). */
  #finish(upstream: AbortController, error: unknown): void {
    if (this.#upstream !== upstream) return;
    this.#upstream = null;
    const watchers = [...this.#watchers];
    this.#watchers.clear();
    for (const watcher of watchers) {
      if (watcher.opened) watcher.end(error);
      else watcher.end(error ?? new TypeError('network: the stream ended before it opened'));
    }
    this.#onEmpty();
  }
}
