import type { DurableRunEvent } from '@runlight/protocol';
import type { AgentRuntimeDriver, StoredRun } from '@runlight/runtime';
import { type PostgresSchemaOptions, runlightTables } from './migrate';
import { type PostgresClient, type SqlStatement, toSqlClient } from './sql-client';

export interface PostgresDriverOptions extends PostgresSchemaOptions {
  /** A node-postgres `Pool` or a PGlite instance; the tables must exist (`migrate`). */
  client: PostgresClient;
}

interface LoadedRow {
  /** Without `assistant` when written before the assistant pointer existed. */
  record: Omit<StoredRun, 'assistant'> & { assistant?: StoredRun['assistant'] };
  assistant_revision: number | null;
  checkpoint_revision: number | null;
  message: unknown;
}

/**
 * A normalized `AgentRuntimeDriver` on PostgreSQL (node-postgres `Pool` or PGlite): one row
 * per run with a revision column and the run's durable events in an event table — among them
 * the assistant message's appends and consolidations, each written once. The run record holds
 * only a pointer to them, so every compare-and-set writes a record of a few hundred bytes.
 *
 * Every compare-and-set is ONE statement — data-modifying CTEs that update (or insert) the run
 * row and write its events only when that row was written — so it is atomic without
 * BEGIN/COMMIT round trips and costs one commit, like a bare `UPDATE`.
 *
 * Rows written before the assistant pointer existed (the checkpoint in `run_assistants`) are
 * still read, and upgraded by the store.
 *
 * @example
 * await migrate(pool);
 * const store = createAgentRuntimeStore(createPostgresDriver({ client: pool }));
 * await store.createRun({ runId: 'run-1' });
 */
export function createPostgresDriver(options: PostgresDriverOptions): AgentRuntimeDriver {
  const sql = toSqlClient(options.client);
  const tables = runlightTables(options);
  // Named statements are prepared once per pooled connection; the schema makes names unique.
  const name = (what: string) => `runlight_${tables.schema}_${what}`;

  const writeChildren = `
    events AS (
      INSERT INTO ${tables.events} (run_id, revision, event)
      SELECT $1, event.revision, event.document
      FROM written, unnest($6::integer[], $10::json[]) AS event (revision, document)
    ),
    checkpoint AS (
      INSERT INTO ${tables.assistants} (run_id, revision, message)
      SELECT $1, $5, $7::json FROM written WHERE $7::json IS NOT NULL
      ON CONFLICT (run_id) DO UPDATE SET revision = excluded.revision, message = excluded.message
    )
    SELECT count(*)::integer AS written FROM written`;

  const insert = `
    WITH written AS (
      INSERT INTO ${tables.runs}
        (id, revision, status, updated_at, assistant_revision, record, lease_expires_at)
      SELECT $1, $3, $8, $9::timestamptz, $5, $4::json, $11::timestamptz WHERE $2::integer IS NULL
      ON CONFLICT (id) DO NOTHING
      RETURNING id
    ),${writeChildren}`;

  const update = `
    WITH written AS (
      UPDATE ${tables.runs}
      SET revision = $3, status = $8, updated_at = $9::timestamptz, assistant_revision = $5,
          record = $4::json, lease_expires_at = $11::timestamptz
      WHERE id = $1 AND revision = $2::integer
      RETURNING id
    ),${writeChildren}`;

  const load: SqlStatement = {
    name: name('load'),
    text: `
      SELECT r.record, r.assistant_revision, a.revision AS checkpoint_revision, a.message
      FROM ${tables.runs} r LEFT JOIN ${tables.assistants} a ON a.run_id = r.id
      WHERE r.id = $1`,
  };

  // Served by the partial index on `lease_expires_at` (only leased runs are in it).
  const findExpired: SqlStatement = {
    name: name('find_expired'),
    text: `
      SELECT id, lease_expires_at FROM ${tables.runs}
      WHERE lease_expires_at IS NOT NULL AND lease_expires_at <= $1::timestamptz
      ORDER BY lease_expires_at, id
      LIMIT $2`,
  };

  const readEvents: SqlStatement = {
    name: name('read_events'),
    text: `SELECT event FROM ${tables.events} WHERE run_id = $1 AND revision > $2 ORDER BY revision`,
  };

  return {
    async load(runId) {
      const [row] = await sql.query<LoadedRow>({ ...load, values: [runId] });
      if (!row) return null;
      // Today's records hold the assistant pointer themselves (`assistant` is in the JSON).
      if ('assistant' in row.record) return row.record;
      // A record written before the pointer: its checkpoint is in `run_assistants` (the
      // store upgrades it to a pointer; its event in the log holds the same message).
      const revision = row.assistant_revision;
      if (revision === null) return row.record;
      // A checkpoint row of another revision is not this record's: let validation refuse it.
      const message = row.checkpoint_revision === revision ? row.message : undefined;
      return { ...row.record, assistant: { message, revision } };
    },

    async compareAndSet(runId, expectedRevision, next, events) {
      const [row] = await sql.query<{ written: number }>({
        name: name(expectedRevision === null ? 'insert' : 'update'),
        text: expectedRevision === null ? insert : update,
        values: [
          runId,
          expectedRevision,
          next.run.revision,
          // The record holds the assistant pointer, never the message: the message is in the
          // event log (the last `assistant-checkpoint` and the `assistant-append`s after it).
          JSON.stringify(next),
          next.assistant?.revision ?? null,
          events.map((event) => event.revision),
          // `run_assistants` holds only checkpoints written before the pointer existed.
          null,
          next.run.status,
          next.run.updatedAt,
          // Revisions travel beside the documents: reading them out of the JSON in SQL would
          // make PostgreSQL de-escape it, which refuses text holding \u0000.
          events.map((event) => JSON.stringify(event satisfies DurableRunEvent)),
          // The lease expiry in a column of its own (null: nobody leases the run), indexed for
          // `findExpiredRuns`; written by the same statement as the record it mirrors.
          next.lease?.expiresAt ?? null,
        ],
      });
      return row?.written === 1;
    },

    async findExpiredRuns({ now, limit }) {
      const rows = await sql.query<{ id: string; lease_expires_at: Date | string }>({
        ...findExpired,
        values: [now, limit],
      });
      return rows.map((row) => ({
        runId: row.id,
        leaseExpiresAt: new Date(row.lease_expires_at).toISOString(),
      }));
    },

    async readEvents(runId, afterRevision) {
      const rows = await sql.query<{ event: unknown }>({
        ...readEvents,
        values: [runId, afterRevision],
      });
      return rows.map((row) => row.event);
    },
  };
}
