import { createHash } from 'node:crypto';
import type { AgentRuntimeDriver, StoredRun } from '@runlight/runtime';
import {
  type DriverRunEvent,
  type StoredEventHead,
  storedEventHead,
} from '@runlight/runtime/driver';
import { CLOCK_READING_SQL, createDatabaseClock } from './database-clock';
import { type PostgresSchemaOptions, runlightTables } from './migrate';
import { type PostgresClient, type SqlStatement, toSqlClient } from './sql-client';

export interface PostgresDriverOptions extends PostgresSchemaOptions {
  /** A node-postgres `Pool` or a PGlite instance; the tables must exist (`migrate`). */
  client: PostgresClient;
}

interface LoadedRow {
  /**
   * The latest snapshot (null: none yet — the run is its events). Without `assistant` when
   * written before the assistant pointer existed.
   */
  record: (Omit<StoredRun, 'assistant'> & { assistant?: StoredRun['assistant'] }) | null;
  /** The latest snapshot in `run_snapshots` (null: none, or a row of an earlier version). */
  snapshot: unknown;
  assistant_revision: number | null;
  checkpoint_revision: number | null;
  message: unknown;
}

/**
 * A normalized `AgentRuntimeDriver` on PostgreSQL (node-postgres `Pool` or PGlite): one row
 * per run — the head (revision, status, lease expiry) in columns — the latest snapshot record
 * in `run_snapshots`, and the run's durable events in an event table, among them the assistant
 * message's appends and consolidations, each written once. A compare-and-set moves the head
 * and appends the event; it writes the snapshot only when the store passes one (now and then),
 * so a write costs about the bytes of its event and of a narrow run row. Snapshots written
 * before `run_snapshots` existed (in `runs.record`) are still read.
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
  const name = statementNamer(tables.schema);
  // Leases are written and compared in the database's time, whatever each process's clock says.
  const clock = createDatabaseClock(async () => {
    const [row] = await sql.query<{ clock_ms: unknown }>({
      name: name('clock'),
      text: `SELECT ${CLOCK_READING_SQL} AS clock_ms`,
    });
    return row?.clock_ms;
  });

  // The snapshot (when the store passes one) goes to its own table, off the run row.
  const writeChildren = `
    snapshot AS (
      INSERT INTO ${tables.snapshots} (run_id, record)
      SELECT $1, $4::json FROM written WHERE $4::json IS NOT NULL
      ON CONFLICT (run_id) DO UPDATE SET record = excluded.record
    ),
    events AS (
      INSERT INTO ${tables.events} (run_id, revision, event)
      SELECT $1, event.revision, event.document
      FROM written, unnest($5::integer[], $8::json[]) AS event (revision, document)
    )
    SELECT count(*)::integer AS written, ${CLOCK_READING_SQL} AS clock_ms FROM written`;

  // `assistant_revision` and `run_assistants` belong to records written before the assistant
  // pointer existed: never written now, so a legacy record keeps naming its own checkpoint.
  const insert = `
    WITH written AS (
      INSERT INTO ${tables.runs} (id, revision, status, updated_at, lease_expires_at)
      SELECT $1, $3, $6, $7::timestamptz, $9::timestamptz
      WHERE $2::integer IS NULL AND $6::text IS NOT NULL
      ON CONFLICT (id) DO NOTHING
      RETURNING id
    ),${writeChildren}`;

  const update = `
    WITH written AS (
      UPDATE ${tables.runs}
      SET revision = $3, status = COALESCE($6::text, status), updated_at = $7::timestamptz,
          lease_expires_at = $9::timestamptz
      WHERE id = $1 AND revision = $2::integer
      RETURNING id
    ),${writeChildren}`;

  // With the head the store wrote (its digest in $10): the head event row must still hold
  // exactly that text — one row by primary key, in the same statement. \`json\` keeps the text
  // as written, so \`md5(event::text)\` is the digest of what the store sent.
  const updateOnHead = update.replace(
    'WHERE id = $1 AND revision = $2::integer',
    `WHERE id = $1 AND revision = $2::integer AND EXISTS (
        SELECT 1 FROM ${tables.events} head
        WHERE head.run_id = $1 AND head.revision = $2::integer AND md5(head.event::text) = $10
      )`,
  );

  const load: SqlStatement = {
    name: name('load'),
    text: `
      SELECT r.record, s.record AS snapshot, r.assistant_revision,
        a.revision AS checkpoint_revision, a.message
      FROM ${tables.runs} r LEFT JOIN ${tables.assistants} a ON a.run_id = r.id
      LEFT JOIN ${tables.snapshots} s ON s.run_id = r.id
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

  // Requests whose effect is not known (pending past `createdBefore`, or claimed before
  // `claimedBefore` and never applied) of runs that have not ended; the orphan form keeps the
  // runs nobody leases. The partial index holds only the unapplied rows.
  const staleControl = (orphans: boolean) => `
      SELECT c.request, c.done_at FROM ${tables.controlRequests} c
      JOIN ${tables.runs} r ON r.id = c.run_id
      WHERE c.applied_at IS NULL
        AND ((c.done_at IS NULL AND c.created_at < $1::timestamptz) OR c.done_at < $2::timestamptz)
        AND r.status NOT IN ('completed', 'failed', 'cancelled')
        AND ${orphans ? 'r.lease_expires_at IS NULL' : 'c.run_id = ANY($4::text[])'}
      ORDER BY c.created_at, c.request_id
      LIMIT $3`;
  const readOrphanControl: SqlStatement = {
    name: name('orphan_control'),
    text: staleControl(true),
  };
  const readStaleControl: SqlStatement = {
    name: name('stale_control'),
    text: staleControl(false),
  };

  return {
    async load(runId) {
      const [row] = await sql.query<LoadedRow>({ ...load, values: [runId] });
      if (!row) return null;
      // The snapshot table's, unless the run row holds a later one (written by an earlier
      // version during a rolling upgrade): either is a valid base, the later folds less.
      if (row.snapshot !== null && revisionOf(row.snapshot) >= revisionOf(row.record)) {
        return row.snapshot;
      }
      if (row.record === null) return null;
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

    async compareAndSet(runId, expectedRevision, snapshot, events, expectedHead) {
      const heads = events.map(storedEventHead);
      const head = headOf(snapshot, heads);
      if (!head) return false;
      const onHead = expectedRevision !== null && expectedHead !== undefined;
      const values = [
        runId,
        expectedRevision,
        head.revision,
        // The record holds the assistant pointer, never the message: the message is in the
        // event log (the last `assistant-checkpoint` and the `assistant-append`s after it).
        snapshot === null ? null : JSON.stringify(snapshot),
        heads.map((event) => event.revision),
        head.status,
        head.at,
        // Revisions travel beside the documents: reading them out of the JSON in SQL would
        // make PostgreSQL de-escape it, which refuses text holding \u0000.
        events.map((event) => JSON.stringify(event satisfies DriverRunEvent)),
        // The lease expiry in a column of its own (null: nobody leases the run), indexed for
        // `findExpiredRuns`; written by the same statement as the event it mirrors.
        head.leaseExpiresAt,
      ];
      if (onHead) values.push(createHash('md5').update(expectedHead, 'utf8').digest('hex'));
      const [row] = await sql.query<{ written: number; clock_ms: unknown }>({
        name: name(expectedRevision === null ? 'insert' : onHead ? 'update_on_head' : 'update'),
        text: expectedRevision === null ? insert : onHead ? updateOnHead : update,
        values,
      });
      clock.observe(row?.clock_ms);
      return row?.written === 1;
    },

    now: () => clock.now(),

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

    async appendControlRequest(runId, request) {
      const rows = await sql.query<{ run_id: string }>({
        name: name('append_control'),
        text: `INSERT INTO ${tables.controlRequests} (run_id, request_id, created_at, request)
          VALUES ($1, $2, $3::timestamptz, $4::json)
          ON CONFLICT (run_id, request_id) DO NOTHING RETURNING run_id`,
        values: [runId, request.requestId, request.createdAt, JSON.stringify(request)],
      });
      return rows.length === 1;
    },

    async readControlRequests(runIds) {
      const rows = await sql.query<{ request: unknown }>({
        name: name('read_control'),
        text: `SELECT request FROM ${tables.controlRequests}
          WHERE run_id = ANY($1::text[]) AND done_at IS NULL ORDER BY created_at, request_id`,
        values: [[...runIds]],
      });
      return rows.map((row) => row.request);
    },

    async markControlRequestDone(runId, requestId, claimedAt) {
      // Milliseconds, as JavaScript reads it back: `reclaimControlRequest` compares the claim.
      const rows = await sql.query<{ run_id: string }>({
        name: name('done_control'),
        text: `UPDATE ${tables.controlRequests}
          SET done_at = COALESCE($3::timestamptz, date_trunc('milliseconds', clock_timestamp()))
          WHERE run_id = $1 AND request_id = $2 AND done_at IS NULL RETURNING run_id`,
        values: [runId, requestId, claimedAt ?? null],
      });
      return rows.length === 1;
    },

    async readStaleControlRequests({ runIds, createdBefore, claimedBefore, limit }) {
      const rows = await sql.query<{ request: unknown; done_at: Date | string | null }>(
        runIds === undefined
          ? { ...readOrphanControl, values: [createdBefore, claimedBefore, limit] }
          : { ...readStaleControl, values: [createdBefore, claimedBefore, limit, [...runIds]] },
      );
      return rows.map((row) => ({
        request: row.request,
        claimedAt: row.done_at === null ? null : new Date(row.done_at).toISOString(),
      }));
    },

    async reclaimControlRequest(runId, requestId, claimedAt, reclaimedAt) {
      const rows = await sql.query<{ run_id: string }>({
        name: name('reclaim_control'),
        text: `UPDATE ${tables.controlRequests}
          SET done_at = greatest($4::timestamptz, $3::timestamptz + interval '1 millisecond')
          WHERE run_id = $1 AND request_id = $2 AND done_at = $3::timestamptz
            AND applied_at IS NULL
          RETURNING run_id`,
        values: [runId, requestId, claimedAt, reclaimedAt],
      });
      return rows.length === 1;
    },

    async deleteEndedControlRequests({ endedBefore, limit }) {
      const rows = await sql.query<{ run_id: string }>({
        name: name('delete_ended_control'),
        text: `DELETE FROM ${tables.controlRequests} WHERE (run_id, request_id) IN (
            SELECT c.run_id, c.request_id FROM ${tables.controlRequests} c
            JOIN ${tables.runs} r ON r.id = c.run_id
            WHERE r.status IN ('completed', 'failed', 'cancelled')
              AND r.updated_at < $1::timestamptz
            LIMIT $2)
          RETURNING run_id`,
        values: [endedBefore, limit],
      });
      return rows.length;
    },

    async markControlRequestApplied(runId, requestId) {
      await sql.query({
        name: name('applied_control'),
        text: `UPDATE ${tables.controlRequests} SET applied_at = now()
          WHERE run_id = $1 AND request_id = $2 AND applied_at IS NULL`,
        values: [runId, requestId],
      });
    },

    async saveRunInput(runId, input) {
      const rows = await sql.query<{ run_id: string }>({
        name: name('save_input'),
        text: `INSERT INTO ${tables.runInputs} (run_id, chat_id, created_at, input)
          VALUES ($1, $2, $3::timestamptz, $4::json)
          ON CONFLICT (run_id) DO NOTHING RETURNING run_id`,
        values: [runId, input.chatId, input.createdAt, JSON.stringify(input)],
      });
      return rows.length === 1;
    },

    async readRunInput(runId) {
      const rows = await sql.query<{ input: unknown }>({
        name: name('read_input'),
        text: `SELECT input FROM ${tables.runInputs} WHERE run_id = $1`,
        values: [runId],
      });
      return rows[0]?.input ?? null;
    },

    async listChatRuns(chatId, { limit }) {
      const rows = await sql.query<{ run_id: string; created_at: Date | string }>({
        name: name('chat_runs'),
        text: `SELECT run_id, created_at FROM ${tables.runInputs}
          WHERE chat_id = $1 ORDER BY created_at DESC, run_id DESC LIMIT $2`,
        values: [chatId, limit],
      });
      return rows.map((row) => ({
        runId: row.run_id,
        createdAt: new Date(row.created_at).toISOString(),
      }));
    },
  };
}

/**
 * What the run row's columns hold after a write: the last event's revision, time and lease
 * expiry and the status of its last status change (null: unchanged by this write) — or the
 * snapshot's, for a write without events.
 */
function headOf(snapshot: StoredRun | null, events: readonly StoredEventHead[]) {
  const last = events.at(-1);
  if (!last) {
    if (!snapshot) return null;
    return {
      revision: snapshot.run.revision,
      at: snapshot.run.updatedAt,
      leaseExpiresAt: snapshot.lease?.expiresAt ?? null,
      status: snapshot.run.status,
    };
  }
  let status: string | null = null;
  for (const event of events) status = event.status ?? status;
  return {
    revision: last.revision,
    at: last.at,
    leaseExpiresAt: last.leaseExpiresAt,
    status: status ?? snapshot?.run.status ?? null,
  };
}

/** A stored record's revision, for choosing the later of two (-1: none, or unreadable). */
function revisionOf(record: unknown): number {
  const revision = (record as { run?: { revision?: unknown } } | null)?.run?.revision;
  return typeof revision === 'number' ? revision : -1;
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
