import { type DurableRunEvent, type RunEvent, safeParseRunEvent } from '@runlight/protocol';
import { unpackStoredEvent } from '@runlight/runtime/driver';
import type { runlightTables } from './migrate';
import type { SqlQueryable } from './sql-client';

/** The bus's reads of what the store wrote: durable events of the log, oversized live deltas. */
export class EventLogReader {
  readonly #sql: SqlQueryable;
  readonly #tables: ReturnType<typeof runlightTables>;
  readonly #onError: (error: unknown) => void;

  constructor(
    sql: SqlQueryable,
    tables: ReturnType<typeof runlightTables>,
    onError: (error: unknown) => void,
  ) {
    this.#sql = sql;
    this.#tables = tables;
    this.#onError = onError;
  }

  /** The run's durable events with `after < revision <= upTo`, in revision order. */
  async events(runId: string, after: number, upTo: number): Promise<DurableRunEvent[]> {
    const rows = await this.#sql.query<{ event: unknown }>({
      text: `SELECT event FROM ${this.#tables.events}
             WHERE run_id = $1 AND revision > $2 AND revision <= $3 ORDER BY revision`,
      values: [runId, after, upTo],
    });
    return this.#parse(runId, rows);
  }

  /** The run's last durable event (none for a run without events). */
  async latestEvent(runId: string): Promise<DurableRunEvent[]> {
    const rows = await this.#sql.query<{ event: unknown }>({
      text: `SELECT event FROM ${this.#tables.events}
             WHERE run_id = $1 ORDER BY revision DESC LIMIT 1`,
      values: [runId],
    });
    return this.#parse(runId, rows);
  }

  /** A live delta too large for a payload, by its row id; none once swept. */
  async deltaRow(runId: string, id: string): Promise<readonly RunEvent[]> {
    const [row] = await this.#sql.query<{ delta: unknown }>({
      text: `SELECT delta FROM ${this.#tables.liveDeltas} WHERE id = $1::bigint AND run_id = $2`,
      values: [id, runId],
    });
    if (!row) return []; // swept already: a `seq` hole the SSE stream reports
    const parsed = safeParseRunEvent(row.delta);
    if (parsed.success && parsed.data.type === 'run-delta') return [parsed.data];
    this.#onError(parsed.success ? new TypeError('a live delta row holds no delta') : parsed.error);
    return [];
  }

  #parse(runId: string, rows: readonly { event: unknown }[]): DurableRunEvent[] {
    const events: DurableRunEvent[] = [];
    for (const row of rows) {
      // Stored without their run id (the row's key), packed or whole: put it back.
      const parsed = safeParseRunEvent(unpackStoredEvent(runId, row.event));
      if (parsed.success && parsed.data.type !== 'run-delta') events.push(parsed.data);
      else
        this.#onError(parsed.success ? new TypeError('a stored event is a delta') : parsed.error);
    }
    return events;
  }
}
