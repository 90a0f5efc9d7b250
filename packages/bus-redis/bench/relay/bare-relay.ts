/**
 * The baseline of `pnpm bench:relay`: the least a relay of the bus must do — read the run
 * streams (one `XREAD` over all of them, as the Redis bus reads, with its batching) or the LISTEN
 * channel, `JSON.parse` what arrives, and write each delta's SSE frame (`JSON.stringify` of the
 * delta, as the gateway sends it) to the run's clients, one write per client and turn. No
 * validation, no ordering or dedup, no live buffer, no cursor checks.
 */
import type { ServerResponse } from 'node:http';
import pg from 'pg';
import { createClient } from 'redis';
import type { BusKind } from '../bus/open-bus';

type Frame = { seq: number; chunk: { delta?: string } } & Record<string, unknown>;

/** The same options the Redis bus reads with. */
const COUNT = 1_000;
const READ_INTERVAL_MS = 2;

export class BareRelay {
  readonly #bus: BusKind;
  readonly #onDelta: (delta: string) => void;
  readonly #onError: (error: unknown) => void;
  readonly #clients = new Map<string, Set<ServerResponse>>();
  /** Per client, this turn's frames. */
  readonly #pending = new Map<ServerResponse, string>();
  #flushScheduled = false;
  #count = false;
  readonly #cursors = new Map<string, string>();
  #closed = false;
  #loop: Promise<void> | null = null;
  #redis: ReturnType<typeof createClient> | null = null;
  #pg: pg.Client | null = null;

  constructor(bus: BusKind, onDelta: (delta: string) => void, onError: (error: unknown) => void) {
    this.#bus = bus;
    this.#onDelta = onDelta;
    this.#onError = onError;
  }

  async start(): Promise<void> {
    const bus = this.#bus;
    if (bus.kind === 'redis') {
      this.#redis = createClient({ url: bus.url, RESP: 2 } as Parameters<typeof createClient>[0]);
      this.#redis.on('error', this.#onError);
      await this.#redis.connect();
      this.#loop = this.#readRedis(this.#redis);
    } else {
      this.#pg = new pg.Client({ connectionString: bus.connectionString });
      this.#pg.on('error', this.#onError);
      await this.#pg.connect();
      this.#pg.on('notification', (message) => this.#notification(message.payload ?? ''));
      await this.#pg.query(`LISTEN "${bus.schema}_events"`);
    }
  }

  /** Reads `runIds` from now on (their streams from the start); `count`: no clients, count each. */
  follow(runIds: readonly string[], count: boolean): void {
    this.#count = count;
    this.#cursors.clear();
    if (this.#bus.kind === 'redis') {
      for (const runId of runIds) this.#cursors.set(`${this.#bus.keyPrefix}run:${runId}`, '0-0');
    }
  }

  unfollow(): void {
    this.#cursors.clear();
    this.#count = false;
  }

  addClient(runId: string, res: ServerResponse): void {
    let set = this.#clients.get(runId);
    if (!set) {
      set = new Set();
      this.#clients.set(runId, set);
    }
    set.add(res);
    res.once('close', () => {
      set.delete(res);
      this.#pending.delete(res);
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#redis?.destroy();
    await this.#loop?.catch(() => {});
    await this.#pg?.end();
  }

  async #readRedis(redis: ReturnType<typeof createClient>): Promise<void> {
    const prefixLength = this.#bus.kind === 'redis' ? this.#bus.keyPrefix.length + 4 : 0;
    while (!this.#closed) {
      if (this.#cursors.size === 0) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        continue;
      }
      const keys = [...this.#cursors.keys()];
      const ids = [...this.#cursors.values()];
      let reply: [string, [string, string[]][]][] | null;
      try {
        reply = (await redis.sendCommand([
          'XREAD',
          'COUNT',
          String(COUNT),
          'BLOCK',
          '200',
          'STREAMS',
          ...keys,
          ...ids,
        ])) as typeof reply;
      } catch (error) {
        if (!this.#closed) this.#onError(error);
        return;
      }
      let full = false;
      for (const [key, entries] of reply ?? []) {
        if (!this.#cursors.has(key) || entries.length === 0) continue;
        this.#cursors.set(key, entries.at(-1)![0]);
        full ||= entries.length >= COUNT;
        const runId = key.slice(prefixLength);
        for (const [, fields] of entries) {
          // `i`, the sender, then `d`: the run's deltas, a JSON list without `runId`.
          if (fields[2] !== 'd') continue;
          for (const delta of JSON.parse(fields[3]!) as Frame[]) {
            delta.runId = runId;
            this.#deliver(runId, delta);
          }
        }
      }
      if (reply !== null && !full) await new Promise((r) => setTimeout(r, READ_INTERVAL_MS));
    }
  }

  #notification(payload: string): void {
    const envelope = JSON.parse(payload) as {
      messages: { kind: string; event?: Frame & { runId: string } }[];
    };
    for (const message of envelope.messages) {
      if (message.kind === 'delta') this.#deliver(message.event!.runId, message.event!);
    }
  }

  #deliver(runId: string, delta: Frame): void {
    if (this.#count) {
      this.#onDelta(delta.chunk.delta ?? '');
      return;
    }
    const clients = this.#clients.get(runId);
    if (!clients || clients.size === 0) return;
    const frame = `event: run-delta\nid: 1:0:${delta.seq}\ndata: ${JSON.stringify(delta)}\n\n`;
    for (const res of clients) this.#pending.set(res, (this.#pending.get(res) ?? '') + frame);
    if (!this.#flushScheduled) {
      this.#flushScheduled = true;
      queueMicrotask(this.#flush);
    }
  }

  readonly #flush = () => {
    this.#flushScheduled = false;
    for (const [res, text] of this.#pending) res.write(text);
    this.#pending.clear();
  };
}
