import { createHash } from 'node:crypto';
import type { DurableRunEvent } from '@runlight/protocol';
import type { AgentRuntimeDriver, StoredRun } from '@runlight/runtime';
import { type PostgresSchemaOptions, runlightTables } from './migrate';
import { type PostgresClient, type SqlStatement, toSqlClient } from './sql-client';

export interface PostgresDriverOptions extends PostgresSchemaOptions {
  /** A node-postgres `Pool` or a PGlite instance; the tables must exist (`migrate`). */
  client: PostgresClient;
}

interface LoadedRow {
  record: Omit<StoredRun, 'assistant'> & { assistant?: null };
  assistant_revision: number | null;
  checkpoint_revision: number | null;
  message: unknown;
}

/**
 * A normalized `AgentRuntimeDriver` on PostgreSQL (node-postgres `Pool` or PGlite): one row
 * per run with a revision column, the run's durable events in an event table, the assistant
 * checkpoint in its own row (see `migrate` for why).
 *
 * Every compare-and-set is ONE statement — data-modifying CTEs that update (or insert) the run
 * row and write its events and checkpoint only when that row was written — so it is atomic
 * without BEGIN/COMMIT round trips and costs one commit, like a bare `UPDATE`.
 *
 * A checkpoint is immutable once written at its revision (the reducer writes a changed message
 * only with a new revision), so the message is sent only when `next.assistant.revision` is
 * newer than the revision being replaced.
 *
 * @example
 * await migrate(pool);
 * const store = createAgentRuntimeStore(createPostgresDriver({ client: pool }));
 * await store.createRun({ runId: 'run-1' });
 */
export function createPostgresDriver(options: PostgresDriverOptions): AgentRuntimeDriver {
  const sql = toSqlClient(options.client);
  const tables = runlightTables(options);
  const name = statementNamer(tables.schema);

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
      INSERT INTO ${tables.runs} (id, revision, status, updated_at, assistant_revision, record)
      SELECT $1, $3, $8, $9::timestamptz, $5, $4::json WHERE $2::integer IS NULL
      ON CONFLICT (id) DO NOTHING
      RETURNING id
    ),${writeChildren}`;

  const update = `
    WITH written AS (
      UPDATE ${tables.runs}
      SET revision = $3, status = $8, updated_at = $9::timestamptz, assistant_revision = $5,
          record = $4::json
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

  const readEvents: SqlStatement = {
    name: name('read_events'),
    text: `SELECT event FROM ${tables.events} WHERE run_id = $1 AND revision > $2 ORDER BY revision`,
  };

  return {
    async load(runId) {
      const [row] = await sql.query<LoadedRow>({ ...load, values: [runId] });
      if (!row) return null;
      const revision = row.assistant_revision;
      // Without a checkpoint the record is returned exactly as stored (`assistant: null` inside).
      if (revision === null) return row.record;
      // A checkpoint row of another revision is not this record's: let validation refuse it.
      const message = row.checkpoint_revision === revision ? row.message : undefined;
      return { ...row.record, assistant: { message, revision } };
    },

    async compareAndSet(runId, expectedRevision, next, events) {
      const { assistant, ...rest } = next;
      // The checkpoint lives in its own row; the record keeps `assistant: null` when none.
      const record = assistant === null ? next : rest;
      const fresh =
        assistant !== null && (expectedRevision === null || assistant.revision > expectedRevision);
      const [row] = await sql.query<{ written: number }>({
        name: name(expectedRevision === null ? 'insert' : 'update'),
        text: expectedRevision === null ? insert : update,
        values: [
          runId,
          expectedRevision,
          next.run.revision,
          JSON.stringify(record),
          assistant?.revision ?? null,
          events.map((event) => event.revision),
          fresh ? JSON.stringify(assistant.message) : null,
          next.run.status,
          next.run.updatedAt,
          // Revisions travel beside the documents: reading them out of the JSON in SQL would
          // make PostgreSQL de-escape it, which refuses text holding \u0000.
          events.map((event) => JSON.stringify(event satisfies DurableRunEvent)),
        ],
      });
      return row?.written === 1;
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

/**
 * Names of prepared statements, unique per schema. Statements are prepared once per pooled
 * connection under their name, and PostgreSQL truncates names to 63 bytes: a name holding the
 * whole schema made two long schemas (54–63 characters) share a name, so the second
 * `createRun` failed "prepared statement … already exists". A short hash of the schema keeps
 * every name short and distinct.
 *
 * @example
 * statementNamer('runlight')('load'); // 'runlight_<12 hex digits>_load'
 */
export function statementNamer(schema: string): (what: string) => string {
  const digest = createHash('sha256').update(schema).digest('hex').slice(0, 12);
  return (what) => `runlight_${digest}_${what}`;
}
