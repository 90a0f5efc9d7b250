export type { PostgresEventBus, PostgresEventBusOptions } from './postgres-event-bus-types';

import { randomUUID } from 'node:crypto';
import {
  isRunDeltaShape,
  type RunDeltaEvent,
  type RunEvent,
  runDeltaShapeError,
} from '@runlight/protocol';
import type { RunEventListener, RunEventSourceHealth } from '@runlight/runtime';
import { ControlListeners, RunDelivery } from '@runlight/runtime/driver';
import { decodeNotification } from './bus-notification';
import { EventLogReader } from './event-log-reader';
import { ListenConnection } from './listen-connection';
import { checkIdentifier, runlightTables } from './migrate';
import { NotificationOutbox } from './notification-outbox';
import type { PostgresEventBus, PostgresEventBusOptions } from './postgres-event-bus-types';
import { type SqlClient, toSqlClient } from './sql-client';

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
  readonly #delivery: RunDelivery;
  readonly #outbox: NotificationOutbox;
  readonly #log: EventLogReader;
  readonly #listening: ListenConnection;
  readonly #control: ControlListeners;
  #closed = false;

  constructor(sql: SqlClient, options: PostgresEventBusOptions) {
    this.instanceId = options.instanceId ?? randomUUID();
    this.#channel = checkIdentifier('channel', options.channel ?? 'runlight_events');
    this.#tables = runlightTables(options);
    this.#onError = options.onError ?? (() => {});
    this.#control = new ControlListeners(this.#onError);
    this.#log = new EventLogReader(sql, this.#tables, this.#onError);
    this.#delivery = new RunDelivery({
      read: (runId, after, upTo) => this.#log.events(runId, after, upTo),
      // Its subscribers' own catch-up and gap reads (the SSE streams') cover the rest.
      readLatest: (runId) => this.#log.latestEvent(runId),
      onError: this.#onError,
      missingEvent: (runId, revision) =>
        new Error(
          `Run ${runId}: event ${revision} is not in ${this.#tables.events}; do all instances use the same schema?`,
        ),
    });
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
      // Every run followed here, or holding deltas, may have missed durable events.
      onListeningAgain: () => {
        for (const runId of this.#delivery.runs()) this.#delivery.catchUp(runId);
      },
    });
  }

  start(): Promise<void> {
    return this.#listening.start();
  }

  publish(event: RunEvent): void {
    if (this.#closed) return;
    this.#delivery.local(event);
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
    return this.#control.add(listener);
  }

  subscribe(runId: string, listener: RunEventListener): () => void {
    return this.#delivery.subscribe(runId, listener);
  }

  liveDeltas(runId: string): readonly RunDeltaEvent[] {
    return this.#delivery.liveDeltas(runId);
  }

  endRun(runId: string): void {
    this.#delivery.endRun(runId);
  }

  listenerCount(runId: string): number {
    return this.#delivery.listenerCount(runId);
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
    await this.#delivery.settled();
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
          // The runtime's own output: a structural check (the client validates what it gets).
          if (isRunDeltaShape(message.event)) this.#delivery.remoteDelta(message.event);
          else this.#onError(runDeltaShapeError(message.event));
          break;
        }
        case 'delta-row':
          this.#delivery.remote(message.runId, () => this.#log.deltaRow(message.runId, message.id));
          break;
        case 'durable':
          this.#delivery.remotePointer(message);
          break;
        case 'control':
          this.#control.notify(message.runId);
          break;
        case 'skip':
          break;
      }
    }
  }
}
