import type { RunEventBus, RunEventSourceHealth } from '@runlight/runtime';
import type { Pool } from 'pg';
import type { PostgresSchemaOptions } from './migrate';
import type { PgliteLike } from './pglite-like';

export interface PostgresEventBusOptions extends PostgresSchemaOptions {
  /** A node-postgres pool: one connection stays checked out for LISTEN. */
  pool?: Pool;
  /** Or a PGlite instance (one process; several buses may share it). */
  pglite?: PgliteLike;
  /** The NOTIFY channel, a lower-case identifier. Default `runlight_events`. */
  channel?: string;
  /** Names this instance in its notifications, so it ignores its own. Default a random UUID. */
  instanceId?: string;
  /**
   * Largest NOTIFY payload in bytes. PostgreSQL refuses 8000 and more; larger live deltas travel
   * through a table row. Default 7900.
   */
  maxPayloadBytes?: number;
  /**
   * How often the LISTEN connection proves it still hears: a NOTIFY to itself on the channel,
   * sent through that connection (a half-open socket or a hung proxy fails it). Default 5000 ms
   * between probes; 0 sends none.
   */
  livenessIntervalMs?: number;
  /**
   * How long a probe — or connecting and LISTEN after a loss — may take before the connection
   * counts as lost and is replaced. Default 5000 ms.
   */
  livenessTimeoutMs?: number;
  /**
   * Hears failures to notify, to read a row, notifications that do not parse, and each loss of
   * the LISTEN connection and failed attempt to listen again.
   */
  onError?: (error: unknown) => void;
}

/** A `RunEventBus` across server instances; `close` stops listening. */
export interface PostgresEventBus extends RunEventBus {
  readonly instanceId: string;
  /** Listeners of `runId` in this instance (to prove none leak). */
  listenerCount(runId: string): number;
  /** Resolves once every event published so far has been handed to PostgreSQL. */
  flushed(): Promise<void>;
  /** `deaf` from a loss of the LISTEN connection until it listens again. */
  health(): RunEventSourceHealth;
  onHealthChange(listener: (health: RunEventSourceHealth) => void): () => void;
  /** NOTIFYs the other instances that a control request of `runId` was recorded. */
  notifyControlRequest(runId: string): void;
  onControlRequest(listener: (runId: string) => void): () => void;
  /** Sends what is pending, stops listening and returns the LISTEN connection (before `pool.end()`). */
  close(): Promise<void>;
}
