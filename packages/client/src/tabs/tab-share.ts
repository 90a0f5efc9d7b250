import { type HubFrame, type HubWatcher, type OpenRunStream, RunHub } from './run-hub';
import { advance, formatPosition, parsePosition, type StreamPosition } from './stream-position';
import type { TabChannel, TabEnvironment } from './tab-environment';
import { readTabMessage, type TabMessage } from './tab-messages';

/** One event-stream request of a store of this tab. */
interface LocalWatch {
  id: string;
  runId: string;
  position: StreamPosition;
  /** Asked again on each leader change; answers of an older generation are ignored. */
  gen: number;
  respond: ((response: Response) => void) | null;
  fail: (error: unknown) => void;
  controller: ReadableStreamDefaultController<Uint8Array> | null;
  /** Its place in this tab's hub while this tab leads. */
  hubWatcher: HubWatcher | null;
  done: boolean;
}

const encoder = new TextEncoder();
const SSE_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8' };

function sseText(frame: HubFrame): string {
  if ('comment' in frame) return `: ${frame.comment}\n\n`;
  const id = frame.id === undefined ? '' : `id: ${frame.id}\n`;
  const data = frame.data
    .split('\n')
    .map((line) => `data: ${line}\n`)
    .join('');
  return `event: ${frame.event}\n${id}${data}\n`;
}

/**
 * The tabs of one origin that send the same requests (`baseUrl`, headers, credentials) share
 * ONE copy of each run's event stream. One tab leads — it holds the Web Lock `name` — and
 * reads the streams (`RunHub`, one per run; over `RunMultiplexer` one connection for all of
 * them); the others ask it over the `BroadcastChannel` `name` and get each message after
 * their own cursor. Each store still sees an SSE response of its run and keeps all its own
 * rules. When the leading tab closes, sleeps or has nothing left to watch, the next tab
 * waiting for the lock leads, announces itself, and every follower asks again from the cursor
 * it holds: its response stays open, with no gap and no duplicate. A tab takes part only while
 * one of its stores watches (the lock is requested on the first watch, released after the last).
 */
export class TabShare {
  readonly #env: TabEnvironment;
  readonly #name: string;
  readonly #openStream: (runId: string) => OpenRunStream;
  readonly #tab = Math.random().toString(36).slice(2) + Date.now().toString(36);
  readonly #locals = new Map<string, LocalWatch>();
  readonly #hubs = new Map<string, RunHub>();
  readonly #remote = new Map<string, { hub: RunHub; watcher: HubWatcher }>();
  #channel: TabChannel | null = null;
  #election: AbortController | null = null;
  #resign: (() => void) | null = null;
  #leading = false;
  #asleep = false;
  #stopSleepWatch: (() => void) | null = null;
  #nextWatch = 0;
  readonly #onIdle: () => void;

  constructor(options: {
    environment: TabEnvironment;
    name: string;
    /** Opens the real stream of a run (this tab's transport, the group's headers). */
    openStream: (runId: string) => OpenRunStream;
    /** Nothing watched and not leading: the owner may drop this share. */
    onIdle?: () => void;
  }) {
    this.#env = options.environment;
    this.#name = options.name;
    this.#openStream = options.openStream;
    this.#onIdle = options.onIdle ?? (() => {});
  }

  /** Whether this tab holds the lock (reads the streams for the group). */
  get leading(): boolean {
    return this.#leading;
  }

  /** The real streams this tab opened while leading, over all runs (diagnostics, tests). */
  streamsOpened = 0;

  /** A store's `GET …/runs/:id/events` at `position`: an SSE response of that run. */
  watch(runId: string, position: StreamPosition, signal?: AbortSignal): Promise<Response> {
    return new Promise<Response>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const local: LocalWatch = {
        id: `${this.#nextWatch++}`,
        runId,
        position,
        gen: 0,
        respond: resolve,
        fail: reject,
        controller: null,
        hubWatcher: null,
        done: false,
      };
      signal?.addEventListener('abort', () => this.#finish(local, signal.reason), { once: true });
      this.#locals.set(local.id, local);
      this.#join();
      if (this.#leading) this.#attach(local);
      else this.#ask(local);
    });
  }

  #join(): void {
    if (this.#channel === null) {
      this.#channel = this.#env.channel(this.#name);
      this.#channel.addEventListener('message', (event) => this.#receive(event.data));
      this.#stopSleepWatch = this.#env.onSleep?.((asleep) => this.#sleep(asleep)) ?? null;
    }
    if (this.#election !== null || this.#asleep) return;
    const election = new AbortController();
    this.#election = election;
    this.#env.locks
      .request(this.#name, { signal: election.signal }, () => {
        if (this.#election !== election) return Promise.resolve();
        return new Promise<void>((release) => {
          this.#resign = release;
          this.#lead();
        });
      })
      // Aborted while queued (nothing left to watch, or asleep): not an error.
      .catch(() => {});
  }

  #lead(): void {
    this.#leading = true;
    this.#post({ kind: 'leader', tab: this.#tab });
    for (const local of this.#locals.values()) this.#attach(local);
  }

  /** Stops leading (and waiting to lead); followers move to the next tab that takes the lock. */
  #stepDown(): void {
    this.#election?.abort();
    this.#election = null;
    const wasLeading = this.#leading;
    this.#leading = false;
    for (const hub of this.#hubs.values()) hub.close();
    this.#hubs.clear();
    this.#remote.clear();
    for (const local of this.#locals.values()) local.hubWatcher = null;
    this.#resign?.();
    this.#resign = null;
    // This tab's own stores keep their responses and ask the next leader from their cursors.
    if (wasLeading) for (const local of this.#locals.values()) this.#ask(local);
  }

  #sleep(asleep: boolean): void {
    this.#asleep = asleep;
    if (asleep) this.#stepDown();
    else if (this.#locals.size > 0) this.#join();
  }

  #hub(runId: string): RunHub {
    let hub = this.#hubs.get(runId);
    if (hub === undefined) {
      const open = this.#openStream(runId);
      const created: RunHub = new RunHub(
        (cursor, signal) => {
          this.streamsOpened++;
          return open(cursor, signal);
        },
        () => {
          if (this.#hubs.get(runId) === created) this.#hubs.delete(runId);
        },
      );
      hub = created;
      this.#hubs.set(runId, hub);
    }
    return hub;
  }

  /** This tab leads: the store's watch joins the run's hub here. */
  #attach(local: LocalWatch): void {
    local.gen++;
    const watcher: HubWatcher = {
      position: local.position,
      opened: local.respond === null,
      open: () => {
        watcher.opened = true;
        this.#open(local);
      },
      answer: (status, contentType, body) => this.#answer(local, status, contentType, body),
      deliver: (frames) => {
        local.position = watcher.position;
        this.#enqueue(local, frames.map(sseText).join(''));
      },
      end: (error) => this.#finish(local, error),
    };
    local.hubWatcher = watcher;
    this.#hub(local.runId).add(watcher);
  }

  /** Another tab leads: ask it (again) from where this store stands. */
  #ask(local: LocalWatch): void {
    local.gen++;
    this.#post({
      kind: 'watch',
      tab: this.#tab,
      watch: local.id,
      gen: local.gen,
      runId: local.runId,
      cursor: formatPosition(local.position),
    });
  }

  #receive(data: unknown): void {
    const message = readTabMessage(data);
    if (message === null) return;
    switch (message.kind) {
      case 'leader':
        if (message.tab !== this.#tab && !this.#leading)
          for (const local of this.#locals.values()) this.#ask(local);
        return;
      case 'watch':
        if (this.#leading) this.#serve(message);
        return;
      case 'unwatch': {
        const key = `${message.tab}/${message.watch}`;
        const entry = this.#remote.get(key);
        this.#remote.delete(key);
        entry?.hub.remove(entry.watcher);
        return;
      }
      default: {
        if (message.to !== this.#tab) return;
        const local = this.#locals.get(message.watch);
        if (local === undefined || local.gen !== message.gen || local.hubWatcher !== null) return;
        if (message.kind === 'open') this.#open(local);
        else if (message.kind === 'answer')
          this.#answer(local, message.status, message.contentType, message.body);
        else if (message.kind === 'end')
          this.#finish(
            local,
            message.broken ? new TypeError('network: the stream broke off') : undefined,
          );
        else this.#deliverFollowed(local, message.frames);
      }
    }
  }

  /** Frames the leader sent this tab's watch: each message only if it is past the cursor. */
  #deliverFollowed(local: LocalWatch, frames: HubFrame[]): void {
    let text = '';
    for (const frame of frames) {
      if (!('comment' in frame)) {
        const next = advance(local.position, frame);
        if (next === null) continue;
        local.position = next;
      }
      text += sseText(frame);
    }
    if (text !== '') this.#enqueue(local, text);
  }

  /** This tab leads: a follower's watch joins the run's hub; answers go back over the channel. */
  #serve(message: Extract<TabMessage, { kind: 'watch' }>): void {
    const position = parsePosition(message.cursor);
    if (position === null) return;
    const key = `${message.tab}/${message.watch}`;
    const previous = this.#remote.get(key);
    if (previous) {
      this.#remote.delete(key);
      previous.hub.remove(previous.watcher);
    }
    const to = { to: message.tab, watch: message.watch, gen: message.gen };
    const hub = this.#hub(message.runId);
    const watcher: HubWatcher = {
      position,
      opened: false,
      open: () => {
        watcher.opened = true;
        this.#post({ kind: 'open', ...to });
      },
      answer: (status, contentType, body) => {
        this.#remote.delete(key);
        this.#post({ kind: 'answer', ...to, status, contentType, body });
      },
      deliver: (frames) => this.#post({ kind: 'frames', ...to, frames }),
      end: (error) => {
        this.#remote.delete(key);
        this.#post({ kind: 'end', ...to, broken: error !== undefined });
      },
    };
    this.#remote.set(key, { hub, watcher });
    hub.add(watcher);
  }

  #open(local: LocalWatch): void {
    const respond = local.respond;
    if (respond === null || local.done) return;
    local.respond = null;
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        local.controller = controller;
      },
      cancel: () => this.#finish(local, undefined, true),
    });
    respond(new Response(body, { status: 200, headers: SSE_HEADERS }));
  }

  #answer(local: LocalWatch, status: number, contentType: string | null, body: string): void {
    if (local.respond === null) {
      this.#finish(local, new TypeError(`network: HTTP ${status}`));
      return;
    }
    const respond = local.respond;
    local.respond = null;
    const headers = contentType === null ? undefined : { 'content-type': contentType };
    const nullBody = status === 204 || status === 205 || status === 304;
    respond(new Response(nullBody ? null : body, { status, ...(headers ? { headers } : {}) }));
    this.#finish(local);
  }

  #enqueue(local: LocalWatch, text: string): void {
    if (local.done) return;
    try {
      local.controller?.enqueue(encoder.encode(text));
    } catch {
      // Cancelled by the store meanwhile.
    }
  }

  /** The watch is over: its body ends (with `error`, if any) and it leaves the group. */
  #finish(local: LocalWatch, error?: unknown, cancelled = false): void {
    if (local.done) return;
    local.done = true;
    this.#locals.delete(local.id);
    if (local.respond !== null) local.fail(error ?? new TypeError('network: closed'));
    else if (!cancelled) {
      try {
        if (error === undefined) local.controller?.close();
        else local.controller?.error(error);
      } catch {
        // Already closed.
      }
    }
    if (local.hubWatcher !== null) {
      const hub = this.#hubs.get(local.runId);
      const watcher = local.hubWatcher;
      local.hubWatcher = null;
      hub?.remove(watcher);
    } else if (!this.#leading) {
      this.#post({ kind: 'unwatch', tab: this.#tab, watch: local.id });
    }
    if (this.#locals.size === 0) this.#leave();
  }

  /** Nothing of this tab watches: stop leading (the followers move on) and leave the channel. */
  #leave(): void {
    this.#stepDown();
    this.#stopSleepWatch?.();
    this.#stopSleepWatch = null;
    this.#channel?.close();
    this.#channel = null;
    this.#onIdle();
  }

  #post(message: TabMessage): void {
    this.#channel?.postMessage({ v: 1, ...message });
  }
}
