import { randomUUID } from 'node:crypto';
import type { RunDeltaEvent, RunEvent } from '@runlight/protocol';
import type {
  AgentRuntimeStore,
  RunEventBus,
  RunEventListener,
  RunEventSourceHealth,
} from '@runlight/runtime';
import { ControlListeners, RunDelivery } from '@runlight/runtime/driver';
import type { RedisClientOptions } from 'redis';
import { DurableReader } from './durable-reader';
import { OutageReport } from './outage-report';
import { RedisBusTimeoutError } from './redis-bus-timeout-error';
import { openRedisConnection, type RedisConnection } from './redis-connection';
import { decodeControl, decodeEntry } from './stream-entry';
import { type StreamEntry, StreamReader } from './stream-reader';
import { StreamWriter } from './stream-writer';

export interface RedisEventBusOptions {
  /**
   * Where the durable facts are: the deployment's store (e.g. on PostgreSQL). Only pointers to
   * durable events travel through Redis; a receiver reads the events themselves here.
   */
  store: Pick<AgentRuntimeStore, 'readEvents'>;
  /** `redis[s]://[[user][:password]@]host[:port][/db]`. Default node-redis's, localhost:6379. */
  url?: string | undefined;
  /** Further node-redis options (TLS, a password, a socket path) for both connections. */
  clientOptions?: RedisClientOptions | undefined;
  /** Prefix of every key the bus writes. Default `runlight:`. */
  keyPrefix?: string;
  /** Names this process in its entries, so it ignores its own. Default a random UUID. */
  instanceId?: string;
  /** Entries kept per run stream, at least (`XADD … MAXLEN ~`). Default 10 000. */
  maxStreamLength?: number;
  /** A run's stream expires this long after its execution ended. Default 600 s. */
  endedRunTtlSeconds?: number;
  /** …and this long after its last event when its runner vanished. Default 86 400 s. */
  activeRunTtlSeconds?: number;
  /**
   * How long one blocking read waits for entries: each reply, even an empty one, proves the
   * reading connection still hears. Default 5000 ms.
   */
  livenessIntervalMs?: number;
  /**
   * How much longer a reply may take (or connecting, at start) before the connection counts as
   * lost and is replaced. Default 5000 ms.
   */
  livenessTimeoutMs?: number;
  /**
   * How long the reading connection waits after a reply with entries before reading again, so
   * entries arriving meanwhile share one reply (a few hundred reads a second however busy the
   * runs are). Adds at most this much to a delta's delivery. Default 2 ms; 0 reads again at once.
   */
  readIntervalMs?: number;
  /**
   * Commands the sending connection queues while Redis is unreachable; past it what a command
   * carries is dropped (counted in the outage's `droppedDeltas`). Default 100 000.
   */
  maxQueuedCommands?: number;
  /**
   * How long a command the sending connection queued while Redis is unreachable (or sent and
   * not answered) waits before what it carries is dropped (counted in the outage's
   * `droppedDeltas`); what Redis takes within it is delivered, in order, when it is back.
   * Default 60 000 ms.
   */
  maxQueuedMs?: number;
  /**
   * Hears a Redis outage twice — a `RedisBusOutageError` when it starts (the first socket
   * error, failed command or read, or late reply, as `cause`) and one when both connections
   * reach Redis again (its duration, the live deltas and durable pointers it dropped, the
   * failures it absorbed) — and, one by one, entries that do not parse, events a pointer names
   * that the store lacks, listeners that throw and a `close` that could not send everything.
   */
  onError?: (error: unknown) => void;
}

/** A `RunEventBus` across processes on Redis Streams; `close` ends its connections. */
export interface RedisEventBus extends RunEventBus {
  readonly instanceId: string;
  /** Listeners of `runId` in this process (to prove none leak). */
  listenerCount(runId: string): number;
  /** Resolves once Redis took every event published so far. */
  flushed(): Promise<void>;
  /** `deaf` from a loss of the reading connection until a read succeeds again. */
  health(): RunEventSourceHealth;
  onHealthChange(listener: (health: RunEventSourceHealth) => void): () => void;
  /**
   * Tells every process of the deployment that a control request of `runId` was recorded (an
   * entry on `<keyPrefix>control`), so the one executing the run reads it now instead of on its
   * next poll. `connectPostgresDeployment({ bus })` calls it for each request its store records;
   * a bus made on its own needs `store.controlRequests?.subscribe((runId) =>
   * bus.notifyControlRequest(runId))`.
   */
  notifyControlRequest(runId: string): void;
  /** Called with the run id when another process announced a control request. */
  onControlRequest(listener: (runId: string) => void): () => void;
  /**
   * Sends what is pending (what Redis does not take within `livenessTimeoutMs` is dropped and
   * reported), then ends both connections.
   */
  close(): Promise<void>;
}

/**
 * Run events across processes through Redis Streams, so an SSE client on gateway B follows a
 * run executing on runner A — without every token crossing the database.
 *
 * - One stream per run (`<keyPrefix>run:<runId>`), trimmed (`MAXLEN ~`), expiring shortly
 *   after the run's execution ended. A live delta travels inline; a durable event only as a
 *   pointer (revision and kind): the store already holds it, and a receiver reads it there.
 * - Each process reads the streams of the runs followed there with one blocking `XREAD` (its
 *   fan-in), from the id of the last entry it read: a dropped connection resumes where it left
 *   off. A run followed for the first time is read from its stream's start, so a watcher joining
 *   mid-answer gets the text so far.
 * - Delivery per run is in publish order: durable events by revision (a skipped revision is
 *   read from the store first, a repeated one dropped), each delta after what preceded it.
 *
 * From a loss of the reading connection (a socket error, a reply later than
 * `livenessIntervalMs + livenessTimeoutMs`) until a read succeeds again the bus is `deaf`
 * (`health()`; the SSE handlers stop pinging, so clients notice). Then it reads the durable
 * events its subscribers may have missed from the store; a delta Redis lost (a restart without
 * persistence) leaves a `seq` hole that the SSE stream reports (`reset`) so the client reloads.
 *
 * @example
 * const bus = await createRedisEventBus({ url: process.env.REDIS_URL, store });
 * const runtime = createAgentRuntime({ store, events: bus });
 */
export async function createRedisEventBus(options: RedisEventBusOptions): Promise<RedisEventBus> {
  const bus = new RedisEventBusImpl(options);
  await bus.start();
  return bus;
}

class RedisEventBusImpl implements RedisEventBus {
  readonly instanceId: string;
  readonly #prefix: string;
  readonly #onError: (error: unknown) => void;
  readonly #outage: OutageReport;
  readonly #delivery: RunDelivery;
  readonly #durable: DurableReader;
  readonly #sending: RedisConnection;
  readonly #writer: StreamWriter;
  readonly #reader: StreamReader;
  readonly #wakeKey: string;
  readonly #controlKey: string;
  readonly #control: ControlListeners;
  /** Runs this process publishes for (until `endRun`): their buffers outlive their watchers. */
  readonly #local = new Set<string>();
  /** Runs someone here listens to: their streams are read. */
  readonly #followed = new Set<string>();
  #closed = false;
  readonly #closeTimeoutMs: number;

  constructor(options: RedisEventBusOptions) {
    this.#closeTimeoutMs = options.livenessTimeoutMs ?? 5_000;
    this.instanceId = options.instanceId ?? randomUUID();
    this.#prefix = `${options.keyPrefix ?? 'runlight:'}run:`;
    this.#wakeKey = `${options.keyPrefix ?? 'runlight:'}wake:${this.instanceId}`;
    this.#controlKey = `${options.keyPrefix ?? 'runlight:'}control`;
    this.#onError = options.onError ?? (() => {});
    this.#outage = new OutageReport(this.#onError);
    const { store } = options;
    this.#durable = new DurableReader(store);
    this.#control = new ControlListeners(this.#onError);
    this.#delivery = new RunDelivery({
      read: (runId, after, upTo) => this.#durable.read(runId, after, upTo),
      onError: this.#onError,
    });
    const blockMs = options.livenessIntervalMs ?? 5_000;
    const replyTimeoutMs = options.livenessTimeoutMs ?? 5_000;
    const readDeadlineMs = blockMs + replyTimeoutMs;
    const connection = (offlineQueue: boolean) =>
      openRedisConnection({
        url: options.url,
        clientOptions: options.clientOptions,
        offlineQueue,
        maxQueued: options.maxQueuedCommands ?? 100_000,
        // The sending side keeps what an outage queued for this long. The reading side keeps
        // its own deadline (`livenessIntervalMs + livenessTimeoutMs`): node-redis's default
        // 5 s would race a 5 s blocking read's empty reply and report an outage when it wins.
        commandTimeoutMs: offlineQueue ? (options.maxQueuedMs ?? 60_000) : readDeadlineMs + 1_000,
      });
    this.#sending = connection(true);
    this.#sending.onLoss((error) => this.#outage.fail('sending', error));
    this.#sending.onReady(() => this.#outage.up('sending'));
    this.#writer = new StreamWriter({
      connection: this.#sending,
      keyOf: (runId) => this.#prefix + runId,
      instanceId: this.instanceId,
      maxStreamLength: options.maxStreamLength ?? 10_000,
      activeTtlSeconds: options.activeRunTtlSeconds ?? 86_400,
      endedTtlSeconds: options.endedRunTtlSeconds ?? 600,
      onFailure: (error, deltas, pointers) => {
        this.#outage.fail('sending', error);
        this.#outage.dropped(deltas, pointers);
      },
      onSent: () => this.#outage.up('sending'),
    });
    this.#reader = new StreamReader({
      createConnection: () => connection(false),
      wakeKey: this.#wakeKey,
      controlKey: this.#controlKey,
      blockMs,
      timeoutMs: replyTimeoutMs,
      count: 1_000,
      readIntervalMs: options.readIntervalMs ?? 2,
      onEntries: (key, entries) => this.#receive(key, entries),
      onControl: (entries) => this.#receiveControl(entries),
      onError: this.#onError,
      onLoss: (error) => this.#outage.fail('reading', error),
      onHearingAgain: () => {
        this.#outage.up('reading');
        this.#catchUp();
      },
    });
  }

  async start(): Promise<void> {
    await this.#sending.connect();
    try {
      await this.#reader.start();
    } catch (error) {
      this.#sending.destroy();
      throw error;
    }
  }

  publish(event: RunEvent): void {
    if (this.#closed) return;
    this.#local.add(event.runId);
    this.#delivery.local(event);
    this.#writer.send(event);
  }

  subscribe(runId: string, listener: RunEventListener): () => void {
    const unsubscribe = this.#delivery.subscribe(runId, listener);
    // The next read names this run's stream: a blocked one returns at once.
    if (!this.#closed && !this.#followed.has(runId)) {
      this.#followed.add(runId);
      this.#reader.follow(this.#prefix + runId);
      this.#writer.wake(this.#wakeKey);
    }
    return () => {
      unsubscribe();
      if (this.#delivery.listenerCount(runId) > 0 || !this.#followed.delete(runId)) return;
      this.#reader.unfollow(this.#prefix + runId);
      this.#durable.forget(runId);
      // Read again from the stream's start when followed again: nothing to keep meanwhile.
      if (!this.#local.has(runId)) this.#delivery.endRun(runId);
    };
  }

  liveDeltas(runId: string): readonly RunDeltaEvent[] {
    return this.#delivery.liveDeltas(runId);
  }

  endRun(runId: string): void {
    this.#local.delete(runId);
    if (!this.#followed.has(runId)) this.#durable.forget(runId);
    this.#delivery.endRun(runId);
    if (!this.#closed) this.#writer.end(runId);
  }

  listenerCount(runId: string): number {
    return this.#delivery.listenerCount(runId);
  }

  flushed(): Promise<void> {
    return this.#writer.flushed();
  }

  health(): RunEventSourceHealth {
    return this.#reader.health;
  }

  onHealthChange(listener: (health: RunEventSourceHealth) => void): () => void {
    return this.#reader.onHealthChange(listener);
  }

  notifyControlRequest(runId: string): void {
    if (!this.#closed) this.#writer.control(this.#controlKey, runId);
  }

  onControlRequest(listener: (runId: string) => void): () => void {
    return this.#control.add(listener);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    // What Redis cannot take within the liveness timeout (it is down) is dropped, reported.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), this.#closeTimeoutMs);
    });
    if ((await Promise.race([this.flushed(), late])) === 'late') {
      this.#onError(
        new RedisBusTimeoutError('sending what was published before close', this.#closeTimeoutMs),
      );
    }
    clearTimeout(timer);
    this.#closed = true;
    await this.#reader.close();
    await this.#delivery.settled();
    await this.#sending.close().catch(() => this.#sending.destroy());
  }

  #receive(key: string, entries: readonly StreamEntry[]): void {
    if (this.#closed) return;
    const runId = key.slice(this.#prefix.length);
    for (const [, fields] of entries) {
      const message = decodeEntry(runId, fields);
      if ('error' in message) this.#onError(message.error);
      else if (message.instanceId === this.instanceId)
        continue; // delivered when published
      else if (message.kind === 'deltas') {
        for (const event of message.events) this.#delivery.remoteDelta(event);
      } else this.#delivery.remotePointer(message.pointer);
    }
  }

  #receiveControl(entries: readonly StreamEntry[]): void {
    if (this.#closed) return;
    for (const [, fields] of entries) {
      const message = decodeControl(fields);
      if ('error' in message) this.#onError(message.error);
      else if (message.instanceId === this.instanceId)
        continue; // the store's own notification woke this process's runtime already
      else this.#control.notify(message.runId);
    }
  }

  /** Reads again after a loss: every run followed here may have missed durable events. */
  #catchUp(): void {
    for (const runId of this.#followed) this.#delivery.catchUp(runId);
  }
}
