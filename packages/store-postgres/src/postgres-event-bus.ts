export type { PostgresEventBus, PostgresEventBusOptions } from './postgres-event-bus-types';

import { randomUUID } from 'node:crypto';
import { type RunDeltaEvent, type RunEvent, safeParseRunEvent } from '@runlight/protocol';
import { RunEventHub, type RunEventListener, type RunEventSourceHealth } from '@runlight/runtime';
import { type DurablePointer, decodeNotification } from './bus-notification';
import { EventLogReader } from './event-log-reader';
import { ListenConnection } from './listen-connection';
import { checkIdentifier, runlightTables } from './migrate';
import { NotificationOutbox } from './notification-outbox';
import type { PostgresEventBus, PostgresEventBusOptions } from './postgres-event-bus-types';
import { type SqlClient, toSqlClient } from './sql-client';

/** Per-run delivery order in this instance. */
interface RunOrder {
  /** Highest durable revision delivered (or passed over without listeners); null: none yet. */
  revision: number | null;
  /** Work that must finish before the next event of the run is delivered. */
  tail: Promise<void> | null;
}

type Produced = RunEvent | readonly RunEvent[] | Promise<readonly RunEvent[]>;

function toList(produced: RunEvent | readonly RunEvent[]): readonly RunEvent[] {
  return Array.isArray(produced) ? produced : [produced as RunEvent];
}

/**
 * Run events across server instances through PostgreSQL LISTEN/NOTIFY, so an SSE client
 * connected to instance B follows a run executing on instance A.
 *
 * - Durable events are already rows of the event log (the store wrote them with the mutation),
 *   so only a pointer travels: run id, revision and kind. A receiver with subscribers reads the
 *   rows; one without only drops its delta buffer on a checkpoint or an end.
 * - Live deltas travel inline, batched into one notification while they fit; a delta too large
 *   for a payload is written to `run_live_deltas` and its row id travels instead.
 * - Delivery per run is in publish order: durable events by revision (a skipped revision is read
 *   from the event log first, a repeated one dropped), each delta after what preceded it.
 * - Each instance keeps the live-delta buffer from what it receives, with `RunEventHub`'s
 *   semantics: the deltas since the last checkpoint.
 *
 * Notifications sent while an instance's LISTEN connection is down are lost to it. The
 * connection proves it hears (`ListenConnection`: a probe every `livenessIntervalMs`); from a
 * loss until it listens again the bus is `deaf` (`health()`; the SSE handlers stop pinging).
 * Then it reads the durable events its subscribers missed from the event log; a lost delta
 * leaves a `seq` hole that the SSE stream reports (`reset`) so the client reloads.
 *
 * @example
 * const bus = await createPostgresEventBus({ pool });
 * const runtime = createAgentRuntime({ store, events: bus });
 * const handlers = createRunHandlers({ store, runtime });
 */
export async function createPostgresEventBus(
  options: PostgresEventBusOptions,
): Promise<PostgresEventBus> {
  const client = options.pool ?? options.pglite;
  if (!client) throw new TypeError('createPostgresEventBus needs a `pool` or a `pglite`');
  const bus = new PostgresEventBusImpl(toSqlClient(client), options);
  await bus.start();
  return bus;
}

class PostgresEventBusImpl implements PostgresEventBus {
  readonly instanceId: string;
  readonly #channel: string;
  readonly #tables: ReturnType<typeof runlightTables>;
  readonly #onError: (error: unknown) => void;
  readonly #hub: RunEventHub;
  readonly #orders = new Map<string, RunOrder>();
  readonly #outbox: NotificationOutbox;
  readonly #log: EventLogReader;
  readonly #listening: ListenConnection;
  readonly #controlListeners = new Set<(runId: string) => void>();
  #closed = false;

  constructor(sql: SqlClient, options: PostgresEventBusOptions) {
    this.instanceId = options.instanceId ?? randomUUID();
    this.#channel = checkIdentifier('channel', options.channel ?? 'runlight_events');
    this.#tables = runlightTables(options);
    this.#onError = options.onError ?? (() => {});
    this.#hub = new RunEventHub({ onListenerError: this.#onError });
    this.#log = new EventLogReader(sql, this.#tables, this.#onError);
    this.#outbox = new NotificationOutbox({
      sql,
      channel: this.#channel,
      liveDeltas: this.#tables.liveDeltas,
      instanceId: this.instanceId,
      maxPayloadBytes: options.maxPayloadBytes ?? 7_900,
      onError: this.#onError,
    });
    this.#listening = new ListenConnection({
      sql,
      channel: this.#channel,
      instanceId: this.instanceId,
      livenessIntervalMs: options.livenessIntervalMs ?? 5_000,
      livenessTimeoutMs: options.livenessTimeoutMs ?? 5_000,
      onNotification: (payload) => this.#receive(payload),
      onError: this.#onError,
      onListeningAgain: () => this.#catchUp(),
    });
  }

  start(): Promise<void> {
    return this.#listening.start();
  }

  /**
   * Listening again after a loss: every run followed here may have missed durable events. A run
   * whose delivered revision is known reads the events after it; one that had none delivered
   * yet reads its latest event (its subscribers' own catch-up and gap reads — the SSE streams'
   * — cover the rest). A delta buffer of a run nobody follows may miss a checkpoint or an end:
   * it is dropped.
   */
  #catchUp(): void {
    for (const [runId, order] of this.#orders) {
      if (this.#hub.listenerCount(runId) === 0) {
        this.#hub.endRun(runId);
        this.#forgetIfIdle(runId);
        continue;
      }
      this.#accept(runId, () =>
        order.revision === null
          ? this.#log.latestEvent(runId)
          : this.#log.events(runId, order.revision, 2 ** 31 - 1),
      );
    }
  }

  publish(event: RunEvent): void {
    if (this.#closed) return;
    this.#accept(event.runId, () => event);
    this.#outbox.send(
      event.type === 'run-delta'
        ? { kind: 'delta', event }
        : {
            kind: 'durable',
            runId: event.runId,
            revision: event.revision,
            type: event.type,
            change: event.type === 'run-status' ? event.change : undefined,
          },
    );
  }

  notifyControlRequest(runId: string): void {
    if (!this.#closed) this.#outbox.send({ kind: 'control', runId });
  }

  onControlRequest(listener: (runId: string) => void): () => void {
    this.#controlListeners.add(listener);
    return () => this.#controlListeners.delete(listener);
  }

  subscribe(runId: string, listener: RunEventListener): () => void {
    this.#order(runId); // a followed run is caught up after a loss, even before its first event
    const unsubscribe = this.#hub.subscribe(runId, listener);
    return () => {
      unsubscribe();
      this.#forgetIfIdle(runId);
    };
  }

  liveDeltas(runId: string): readonly RunDeltaEvent[] {
    return this.#hub.liveDeltas(runId);
  }

  endRun(runId: string): void {
    this.#hub.endRun(runId);
    this.#forgetIfIdle(runId);
  }

  listenerCount(runId: string): number {
    return this.#hub.listenerCount(runId);
  }

  flushed(): Promise<void> {
    return this.#outbox.flushed();
  }

  health(): RunEventSourceHealth {
    return this.#listening.health;
  }

  onHealthChange(listener: (health: RunEventSourceHealth) => void): () => void {
    return this.#listening.onHealthChange(listener);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    await this.flushed();
    this.#closed = true;
    await Promise.all([...this.#orders.values()].map((order) => order.tail));
    await this.#listening.close();
  }

  #receive(payload: string): void {
    const decoded = decodeNotification(payload);
    if (!decoded.ok) {
      this.#onError(decoded.error);
      return;
    }
    if (decoded.instanceId === this.instanceId || this.#closed) return;
    for (const message of decoded.messages) {
      switch (message.kind) {
        case 'delta': {
          const parsed = safeParseRunEvent(message.event);
          if (parsed.success && parsed.data.type === 'run-delta') {
            const event = parsed.data;
            this.#accept(event.runId, () => event);
          } else this.#onError(parsed.success ? new TypeError('not a delta') : parsed.error);
          break;
        }
        case 'delta-row':
          this.#accept(message.runId, () => this.#log.deltaRow(message.runId, message.id));
          break;
        case 'durable':
          this.#accept(message.runId, () => this.#pointer(message));
          break;
        case 'control':
          for (const listener of this.#controlListeners) {
            try {
              listener(message.runId);
            } catch (error) {
              this.#onError(error);
            }
          }
          break;
        case 'skip':
          break;
      }
    }
  }

  /**
   * Delivers what `produce` yields after everything accepted before it for the run. A ready
   * value is delivered at once when nothing of the run is pending (the usual case); anything
   * that needs a read waits its turn, and so does everything accepted after it.
   */
  #accept(runId: string, produce: () => Produced): void {
    const order = this.#order(runId);
    if (order.tail !== null) {
      this.#chain(runId, order, produce);
      return;
    }
    let produced: Produced;
    try {
      produced = produce();
    } catch (error) {
      this.#onError(error);
      return;
    }
    if (produced instanceof Promise) {
      this.#chain(runId, order, () => produced);
      return;
    }
    const events = toList(produced);
    if (events.some((event) => this.#needsGap(order, event))) {
      this.#chain(runId, order, () => events);
      return;
    }
    for (const event of events) this.#deliverNow(order, event);
    this.#forgetIfIdle(runId);
  }

  #chain(runId: string, order: RunOrder, produce: () => Produced): void {
    const turn = async () => {
      try {
        for (const event of toList(await produce())) await this.#deliver(order, event);
      } catch (error) {
        this.#onError(error);
      }
    };
    const tail: Promise<void> = (order.tail ?? Promise.resolve()).then(turn).finally(() => {
      if (order.tail === tail) {
        order.tail = null;
        this.#forgetIfIdle(runId);
      }
    });
    order.tail = tail;
  }

  #order(runId: string): RunOrder {
    let order = this.#orders.get(runId);
    if (!order) {
      order = { revision: null, tail: null };
      this.#orders.set(runId, order);
    }
    return order;
  }

  #forgetIfIdle(runId: string): void {
    const order = this.#orders.get(runId);
    if (
      order &&
      order.tail === null &&
      this.#hub.listenerCount(runId) === 0 &&
      this.#hub.liveDeltas(runId).length === 0
    ) {
      this.#orders.delete(runId);
    }
  }

  /** A durable event that skips revisions a subscriber has not seen needs the missing ones. */
  #needsGap(order: RunOrder, event: RunEvent): boolean {
    return (
      event.type !== 'run-delta' &&
      order.revision !== null &&
      event.revision > order.revision + 1 &&
      this.#hub.listenerCount(event.runId) > 0
    );
  }

  async #deliver(order: RunOrder, event: RunEvent): Promise<void> {
    if (event.type !== 'run-delta' && this.#needsGap(order, event)) {
      const missing = await this.#log.events(event.runId, order.revision!, event.revision - 1);
      for (const earlier of missing) this.#deliverNow(order, earlier);
    }
    this.#deliverNow(order, event);
  }

  #deliverNow(order: RunOrder, event: RunEvent): void {
    if (event.type !== 'run-delta') {
      if (order.revision !== null && event.revision <= order.revision) return; // a repeat
      order.revision = event.revision;
    }
    this.#hub.publish(event);
  }

  /** A durable pointer: read the rows when someone here listens, else only mind the buffer. */
  #pointer(pointer: DurablePointer): readonly RunEvent[] | Promise<readonly RunEvent[]> {
    const order = this.#order(pointer.runId);
    if (order.revision !== null && pointer.revision <= order.revision) return [];
    if (this.#hub.listenerCount(pointer.runId) === 0) {
      order.revision = pointer.revision;
      // As `RunEventHub`: a checkpoint holds every delta before it; an ended run streams no more.
      if (
        pointer.type === 'assistant-checkpoint' ||
        pointer.type === 'assistant-append' ||
        (pointer.type === 'run-status' &&
          (pointer.change === 'completed' ||
            pointer.change === 'failed' ||
            pointer.change === 'cancelled'))
      ) {
        this.#hub.endRun(pointer.runId);
      }
      return [];
    }
    const after = order.revision ?? pointer.revision - 1;
    return this.#log.events(pointer.runId, after, pointer.revision).then((events) => {
      if (events.at(-1)?.revision !== pointer.revision) {
        // Committed before it was announced, so it must be there — unless the instances do
        // not share the schema.
        this.#onError(
          new Error(
            `Run ${pointer.runId}: event ${pointer.revision} is not in ${this.#tables.events}; do all instances use the same schema?`,
          ),
        );
      }
      return events;
    });
  }
}
