import type { DurableRunEvent, RunDeltaEvent, RunEvent, RunSnapshot } from '@runlight/protocol';
import { listenOnLoopback } from '@runlight/test-utils';
import { expect } from 'vitest';
import type { RunEventListener, RunEventSource } from '../../events/event-hub';
import { RunEventHub } from '../../events/event-hub';
import { createAgentRuntimeStore } from '../../store/agent-runtime-store';
import type { AgentRuntimeDriver } from '../../store/driver/driver';
import { createMemoryDriver } from '../../store/driver/memory-driver';
import { unpackStoredEvent } from '../../store/log/packed-event';
import { OwnedRun } from '../../store/owned-run';
import { type LatencyOptions, withLatency } from '../../testing/with-latency';
import { createRunHandlers, type RunHandlersOptions } from '../create-run-handlers';
import { createRunRouter } from '../routes/create-run-router';
import { type NodeListener, toNodeListener } from '../routes/to-node-listener';

/** A read that waits longer than this fails the test at once instead of at the test timeout. */
const READ_TIMEOUT_MS = 3_000;

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no SSE data within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** A test-side SSE parser, written from the WHATWG spec independently of the server's writer. */
export type SseItem =
  | { kind: 'message'; event: string; id: string | null; data: string }
  | { kind: 'comment'; text: string };

export class SseReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  #buffer = '';
  #items: SseItem[] = [];
  #fields: { event?: string; id?: string; data: string[] } = { data: [] };
  #ended = false;

  constructor(body: ReadableStream<Uint8Array>) {
    this.#reader = body.getReader();
  }

  /** The next message or comment; `null` when the server ended the stream. */
  async next(): Promise<SseItem | null> {
    while (this.#items.length === 0) {
      if (this.#ended) return null;
      const { done, value } = await withTimeout(this.#reader.read(), READ_TIMEOUT_MS);
      if (done) {
        this.#ended = true;
        continue;
      }
      this.#feed(this.#decoder.decode(value, { stream: true }));
    }
    return this.#items.shift()!;
  }

  /** The next message (comments skipped); `null` at the end. */
  async nextMessage(): Promise<Extract<SseItem, { kind: 'message' }> | null> {
    for (;;) {
      const item = await this.next();
      if (item === null || item.kind === 'message') return item;
    }
  }

  /** Every remaining message until the server ends the stream. */
  async rest(): Promise<Extract<SseItem, { kind: 'message' }>[]> {
    const out: Extract<SseItem, { kind: 'message' }>[] = [];
    for (let item = await this.nextMessage(); item; item = await this.nextMessage()) out.push(item);
    return out;
  }

  async cancel(): Promise<void> {
    await this.#reader.cancel().catch(() => {});
  }

  #feed(text: string): void {
    this.#buffer += text;
    for (let end = this.#buffer.indexOf('\n'); end >= 0; end = this.#buffer.indexOf('\n')) {
      const line = this.#buffer.slice(0, end).replace(/\r$/, '');
      this.#buffer = this.#buffer.slice(end + 1);
      this.#line(line);
    }
  }

  #line(line: string): void {
    if (line === '') {
      const { event, id, data } = this.#fields;
      if (data.length > 0) {
        this.#items.push({
          kind: 'message',
          event: event ?? 'message',
          id: id ?? null,
          data: data.join('\n'),
        });
      }
      this.#fields = { data: [] };
      return;
    }
    if (line.startsWith(':')) {
      this.#items.push({ kind: 'comment', text: line.slice(1).trim() });
      return;
    }
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'data') this.#fields.data.push(value);
    else if (field === 'event') this.#fields.event = value;
    else if (field === 'id') this.#fields.id = value;
  }
}

/** A node:http server on 127.0.0.1, port 0. */
export const listen = (listener: NodeListener) => listenOnLoopback(listener);

/**
 * A driver that publishes every committed event to `hub` after its compare-and-set resolves —
 * where the runtime publishes. `holdNext()` swallows the next publish (a lost notification).
 */
export function publishingDriver(driver: AgentRuntimeDriver, hub: RunEventHub) {
  let hold = 0;
  const wrapped: AgentRuntimeDriver = {
    load: (runId) => driver.load(runId),
    readEvents: (runId, after) => driver.readEvents(runId, after),
    findExpiredRuns: (query) => driver.findExpiredRuns(query),
    async compareAndSet(runId, expected, next, events, head) {
      const written = await driver.compareAndSet(runId, expected, next, events, head);
      if (written) {
        for (const event of events) {
          if (hold > 0) hold--;
          else hub.publish(unpackStoredEvent(runId, event) as DurableRunEvent);
        }
      }
      return written;
    },
  };
  return { driver: wrapped, holdNext: () => void hold++ };
}

/**
 * A `RunEventSource` in front of the hub whose listeners miss the events `drop` selects, while
 * the live buffer keeps them (a subscriber that lost a notification).
 */
export function lossySource(hub: RunEventHub, drop: (event: RunEvent) => boolean): RunEventSource {
  return {
    subscribe: (runId: string, listener: RunEventListener) =>
      hub.subscribe(runId, (event) => {
        if (!drop(event)) listener(event);
      }),
    liveDeltas: (runId: string) => hub.liveDeltas(runId),
  };
}

export interface FixtureOptions extends Partial<Omit<RunHandlersOptions, 'store' | 'runtime'>> {
  latency?: LatencyOptions;
  /** Replace the hub as the handlers' event source. */
  source?: (hub: RunEventHub) => RunHandlersOptions['runtime'];
}

/** A real store (memory driver, optional latency), a hub, the handlers and router over HTTP. */
export async function createHttpFixture(options: FixtureOptions = {}) {
  const { latency, source, ...handlerOptions } = options;
  const hub = new RunEventHub();
  const memory = createMemoryDriver();
  const { driver, holdNext } = publishingDriver(
    latency ? withLatency(memory, latency) : memory,
    hub,
  );
  const store = createAgentRuntimeStore(driver);
  const runtime = source ? source(hub) : hub;
  // Public: mounted behind a public router below, and called directly by some tests.
  const handlers = createRunHandlers({ store, runtime, authorize: 'public', ...handlerOptions });
  const server = await listen(
    toNodeListener(createRunRouter({ handlers, basePath: '/api', authorize: 'public' })),
  );
  const url = (path: string) => `${server.origin}/api${path}`;
  return {
    hub,
    store,
    handlers,
    holdNext,
    url,
    close: () => server.close(),
    /** Opens the event stream of `runId`; `cursor` goes to `Last-Event-ID`, `after` to the query. */
    async events(
      runId: string,
      options: { cursor?: string; after?: string; signal?: AbortSignal } = {},
    ) {
      const query = options.after === undefined ? '' : `?after=${options.after}`;
      const response = await fetch(url(`/runs/${runId}/events${query}`), {
        headers: options.cursor === undefined ? {} : { 'Last-Event-ID': options.cursor },
        signal: options.signal ?? null,
      });
      if (!response.ok || !response.body) throw new Error(`events: HTTP ${response.status}`);
      return new SseReader(response.body);
    },
    async snapshot(runId: string): Promise<RunSnapshot & { serverTime: string }> {
      const response = await fetch(url(`/runs/${runId}`));
      if (!response.ok) throw new Error(`snapshot: HTTP ${response.status}`);
      return (await response.json()) as RunSnapshot & { serverTime: string };
    },
  };
}

/**
 * Drives one run the way the runtime does: owned mutations through `OwnedRun` (the driver
 * publishes their events), live text deltas published on the latest checkpoint with `seq` from 1.
 */
export class ScriptedRun {
  text = '';
  baseRevision = 0;
  seq = 0;
  #operation = 0;
  #operationId: string | null = null;
  #startedAt = '';

  private constructor(
    readonly runId: string,
    readonly owned: OwnedRun,
    readonly hub: RunEventHub,
  ) {}

  static async start(
    fixture: { store: ReturnType<typeof createAgentRuntimeStore>; hub: RunEventHub },
    runId: string,
  ) {
    await fixture.store.createRun({ runId });
    const acquired = await fixture.store.acquireRun(runId, { owner: 'worker-a', leaseMs: 60_000 });
    return new ScriptedRun(runId, new OwnedRun(fixture.store, acquired), fixture.hub);
  }

  get revision(): number {
    return this.owned.run.revision;
  }

  delta(text: string): RunDeltaEvent {
    this.text += text;
    const event: RunDeltaEvent = {
      type: 'run-delta',
      runId: this.runId,
      baseRevision: this.baseRevision,
      seq: ++this.seq,
      chunk: { type: 'text-delta', id: 'text-1', delta: text },
    };
    this.hub.publish(event);
    return event;
  }

  async checkpoint(): Promise<void> {
    const run = await this.owned.saveAssistantCheckpoint({
      id: 'assistant-1',
      role: 'assistant',
      parts: [{ type: 'text', text: this.text }],
    });
    this.baseRevision = run.revision;
    this.seq = 0;
  }

  async startOperation(): Promise<void> {
    const step = this.#operation++;
    this.#operationId = `request:step-${step}`;
    this.#startedAt = new Date(Date.UTC(2026, 11, 2, 14, 0, step)).toISOString();
    await this.owned.recordRunOperation({
      id: this.#operationId,
      kind: 'model-request',
      phase: 'started',
      step,
      startedAt: this.#startedAt,
    });
  }

  async endOperation(): Promise<void> {
    const step = this.#operation - 1;
    await this.owned.recordRunOperation({
      id: this.#operationId!,
      kind: 'model-request',
      phase: 'completed',
      step,
      startedAt: this.#startedAt,
      endedAt: new Date(Date.UTC(2026, 11, 2, 14, 1, step)).toISOString(),
    });
  }

  async complete(): Promise<void> {
    await this.owned.commitTerminal({ status: 'completed' });
  }
}

/**
 * What a client that follows the stream holds, checked strictly: durable events must arrive at
 * exactly revision + 1, deltas exactly at seq + 1 on the checkpoint held, and every message's
 * id must equal the cursor this state implies.
 */
export class Follower {
  revision = 0;
  checkpointRevision = 0;
  checkpointText = '';
  deltaText = '';
  delta: { baseRevision: number; seq: number } | null = null;
  terminal = false;
  readonly log: string[] = [];

  /**
   * @param strictText the follower was connected since before the first delta and never
   *   dropped: every checkpoint must then equal the text it already shows.
   */
  constructor(readonly strictText = false) {}

  /** Starts from a snapshot, as a client that (re)loaded it. */
  static fromSnapshot(snapshot: RunSnapshot): Follower {
    const follower = new Follower();
    follower.revision = snapshot.revision;
    follower.checkpointRevision = snapshot.assistant?.revision ?? 0;
    follower.checkpointText = textOf(snapshot.assistant?.message.parts ?? []);
    follower.terminal = ['completed', 'failed', 'cancelled'].includes(snapshot.run.status);
    return follower;
  }

  get text(): string {
    return this.checkpointText + this.deltaText;
  }

  get cursor(): string {
    return this.delta
      ? `${this.revision}:${this.delta.baseRevision}:${this.delta.seq}`
      : `${this.revision}`;
  }

  apply(message: { event: string; id: string | null; data: string }): void {
    const event = JSON.parse(message.data) as RunEvent;
    if (message.event !== event.type) throw new Error(`event ${message.event} ≠ ${event.type}`);
    if (event.type === 'run-delta') {
      if (event.baseRevision !== this.checkpointRevision) {
        throw new Error(`delta on ${event.baseRevision}, held ${this.checkpointRevision}`);
      }
      const expected = (this.delta?.seq ?? 0) + 1;
      if (event.seq !== expected) throw new Error(`delta seq ${event.seq}, expected ${expected}`);
      this.delta = { baseRevision: event.baseRevision, seq: event.seq };
      if (event.chunk.type === 'text-delta') this.deltaText += event.chunk.delta;
    } else {
      if (event.revision !== this.revision + 1) {
        throw new Error(`revision ${event.revision} after ${this.revision}`);
      }
      this.revision = event.revision;
      if (event.type === 'assistant-checkpoint') {
        const text = textOf(event.checkpoint.message.parts);
        // A client that never missed a live delta shows exactly the new text already.
        if (this.strictText && text !== this.text) {
          throw new Error(`checkpoint "${text}" after text "${this.text}"`);
        }
        this.checkpointRevision = event.revision;
        this.checkpointText = text;
        this.deltaText = '';
        this.delta = null;
      }
      if (event.type === 'assistant-append') {
        const text = `${this.checkpointText}${event.chunks.map((chunk) => (chunk.type === 'text-delta' ? chunk.delta : '')).join('')}`;
        if (this.strictText && text !== this.text) {
          throw new Error(`append "${text}" after text "${this.text}"`);
        }
        this.checkpointRevision = event.revision;
        this.checkpointText = text;
        this.deltaText = '';
        this.delta = null;
      }
      if (
        event.type === 'run-status' &&
        event.change !== 'acquired' &&
        event.change !== 'created'
      ) {
        this.terminal = true;
      }
    }
    this.log.push(
      event.type === 'run-delta' ? `d${event.baseRevision}.${event.seq}` : `r${event.revision}`,
    );
    if (message.id !== this.cursor) throw new Error(`id ${message.id}, expected ${this.cursor}`);
  }
}

function textOf(parts: readonly unknown[]): string {
  return parts
    .map((part) =>
      (part as { type: string }).type === 'text' ? (part as { text: string }).text : '',
    )
    .join('');
}

/**
 * What the handlers send of `snapshot` by default (issue 22 item 10): no `fencingToken`, the
 * owner an opaque holder tag (null when the run never had one).
 */
export function asPublic(snapshot: RunSnapshot) {
  const { fencingToken: _token, ...run } = snapshot.run;
  return {
    ...snapshot,
    run: { ...run, owner: run.owner === null ? null : expect.stringMatching(/^holder-/) },
  };
}
