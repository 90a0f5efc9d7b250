import { type PostgresClient, quoteIdentifier, toSqlClient } from './sql-client';

/** Where the Runlight tables live. */
export interface PostgresSchemaOptions {
  /**
   * The PostgreSQL schema holding the tables (created when missing). Default `runlight`.
   * A lower-case SQL identifier, so each test run or tenant can have its own.
   */
  schema?: string;
}

export const DEFAULT_SCHEMA = 'runlight';

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/** Fully qualified table names of one schema, quoted for SQL. */
export interface RunlightTables {
  schema: string;
  runs: string;
  assistants: string;
  events: string;
  liveDeltas: string;
  controlRequests: string;
  runInputs: string;
  snapshots: string;
}

/** Validates a schema or channel name: lower-case, so PGlite's unquoted LISTEN agrees too. */
export function checkIdentifier(kind: string, name: string): string {
  if (!IDENTIFIER.test(name)) {
    throw new TypeError(
      `${kind} ${JSON.stringify(name)} must be a lower-case SQL identifier (a-z, 0-9, _; at most 63)`,
    );
  }
  return name;
}

/**
 * The quoted, schema-qualified names of the Runlight tables, for operators' own queries.
 *
 * @example
 * const { runs } = runlightTables({ schema: 'runlight' });
 * await pool.query(`SELECT id, status, updated_at FROM ${runs} WHERE status = 'running'`);
 */
export function runlightTables(options: PostgresSchemaOptions = {}): RunlightTables {
  const schema = checkIdentifier('schema', options.schema ?? DEFAULT_SCHEMA);
  const table = (name: string) => `${quoteIdentifier(schema)}.${quoteIdentifier(name)}`;
  return {
    schema,
    runs: table('runs'),
    assistants: table('run_assistants'),
    events: table('run_events'),
    liveDeltas: table('run_live_deltas'),
    controlRequests: table('run_control_requests'),
    runInputs: table('run_inputs'),
    snapshots: table('run_snapshots'),
  };
}

/**
 * The schema. Why these shapes:
 * - `runs` holds one row per run; `revision` is the compare-and-set column (the revision of the
 *   run's last event). Its `record` holds the snapshot of rows written before `run_snapshots`.
 * - `run_snapshots` holds the latest snapshot of the run record — written now and then (every
 *   64 events), none until the first; the store folds the events after it — never the assistant
 *   message. Off the run row, which every write rewrites: PostgreSQL logs each new row version
 *   whole, so a ~700-byte record there cost ~700 bytes of WAL per write.
 * - The assistant message lives in `run_events` (its appends and consolidations, each written
 *   once); the record holds a pointer, so every write rewrites a record of a few hundred bytes
 *   however long the answer grows. `run_assistants` holds checkpoints written before the pointer
 *   existed (read, never written), named by `runs.assistant_revision`.
 * - `run_events` is the per-run durable event log, keyed (run_id, revision): that key is the
 *   only index `readEvents(runId, afterRevision)` needs.
 * - `run_live_deltas` carries live deltas too large for a NOTIFY payload between instances;
 *   rows are short-lived and swept by age (hence the index on `created_at`).
 * Documents are `json`, not `jsonb`: they are never queried inside, `json` stores the text as
 *   sent (cheaper to write) and accepts every string JSON can encode (`\u0000` included).
 * - `runs.lease_expires_at` (see `leaseColumn`) mirrors the record's lease for the recovery query.
 * - `run_control_requests` holds durable control requests (cancels, approval answers): the
 *   run's executor claims each (`done_at`), then records that it took effect (`applied_at`);
 *   its key is what pending reads look up by, recovery finds the unapplied ones by age.
 * - `run_inputs` holds the conversation each run was started with (written once), indexed by
 *   chat, newest first, for `listChatRuns`. Added later; additive (no existing table changes).
 * No foreign keys: every write of a run goes through one statement that touches its row first,
 *   and a foreign key check would cost a lookup per event on the hot path.
 */
function statements(tables: RunlightTables): string[] {
  return [
    `CREATE SCHEMA IF NOT EXISTS ${quoteIdentifier(tables.schema)}`,
    `CREATE TABLE IF NOT EXISTS ${tables.runs} (
      id text PRIMARY KEY,
      revision integer NOT NULL,
      status text NOT NULL,
      updated_at timestamptz NOT NULL,
      assistant_revision integer,
      record json NOT NULL
    )`,
    `CREATE TABLE IF NOT EXISTS ${tables.assistants} (
      run_id text PRIMARY KEY,
      revision integer NOT NULL,
      message json NOT NULL
    )`,
    `CREATE TABLE IF NOT EXISTS ${tables.events} (
      run_id text NOT NULL,
      revision integer NOT NULL,
      event json NOT NULL,
      PRIMARY KEY (run_id, revision)
    )`,
    `CREATE TABLE IF NOT EXISTS ${tables.liveDeltas} (
      id bigserial PRIMARY KEY,
      run_id text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      delta json NOT NULL
    )`,
    `CREATE INDEX IF NOT EXISTS ${quoteIdentifier('run_live_deltas_created_at')}
      ON ${tables.liveDeltas} (created_at)`,
    ...leaseColumn(tables),
    // Snapshots are written now and then (a run starts as its events): `record` may be null.
    `ALTER TABLE ${tables.runs} ALTER COLUMN record DROP NOT NULL`,
    // Durable cancels and approval answers, keyed so a request id is stored at most once;
    // `done_at` is set by the one claim that applies it (the executor's).
    `CREATE TABLE IF NOT EXISTS ${tables.controlRequests} (
      run_id text NOT NULL,
      request_id text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      done_at timestamptz,
      request json NOT NULL,
      PRIMARY KEY (run_id, request_id)
    )`,
    // `applied_at`: the claimed request took effect (or never can); until then recovery may
    // claim it again when its claimer died. Only unapplied rows are indexed.
    `ALTER TABLE ${tables.controlRequests} ADD COLUMN IF NOT EXISTS applied_at timestamptz`,
    `CREATE INDEX IF NOT EXISTS ${quoteIdentifier('run_control_requests_unapplied')}
      ON ${tables.controlRequests} (created_at) WHERE applied_at IS NULL`,
    `CREATE TABLE IF NOT EXISTS ${tables.runInputs} (
      run_id text PRIMARY KEY,
      chat_id text,
      created_at timestamptz NOT NULL,
      input json NOT NULL
    )`,
    `CREATE INDEX IF NOT EXISTS ${quoteIdentifier('run_inputs_chat')}
      ON ${tables.runInputs} (chat_id, created_at DESC, run_id DESC) WHERE chat_id IS NOT NULL`,
    // The latest snapshot record of a run, off the run row (issue 39): the run row is rewritten
    // by every write (PostgreSQL logs the whole new row version), the snapshot every 64th.
    `CREATE TABLE IF NOT EXISTS ${tables.snapshots} (
      run_id text PRIMARY KEY,
      record json NOT NULL
    )`,
  ];
}

/**
 * `runs.lease_expires_at`: the current lease's expiry (null when nobody leases the run: queued,
 * paused for approvals, ended), which the recovery loop's `findExpiredRuns` polls through a
 * partial index holding only leased runs. Added to tables created before it existed and
 * backfilled from the record's lease; the driver writes it in the same statement as the record.
 */
function leaseColumn(tables: RunlightTables): string[] {
  return [
    `ALTER TABLE ${tables.runs} ADD COLUMN IF NOT EXISTS lease_expires_at timestamptz`,
    `UPDATE ${tables.runs}
      SET lease_expires_at = (record -> 'lease' ->> 'expiresAt')::timestamptz
      WHERE lease_expires_at IS NULL
        AND status NOT IN ('completed', 'failed', 'cancelled')
        AND record -> 'lease' ->> 'expiresAt' IS NOT NULL`,
    `CREATE INDEX IF NOT EXISTS ${quoteIdentifier('runs_lease_expires_at')}
      ON ${tables.runs} (lease_expires_at) WHERE lease_expires_at IS NOT NULL`,
  ];
}

/**
 * Creates the Runlight tables and indexes when they are missing. Idempotent, and safe to run
 * from several instances at once: a transaction-scoped advisory lock serializes the DDL.
 *
 * @example
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * pool.on('error', onError); // your pool: an idle connection the server closes is an 'error'
 * await migrate(pool, { schema: 'runlight' });
 * const store = createAgentRuntimeStore(createPostgresDriver({ client: pool, schema: 'runlight' }));
 */
export async function migrate(
  client: PostgresClient,
  options: PostgresSchemaOptions = {},
): Promise<void> {
  const sql = toSqlClient(client);
  const tables = runlightTables(options);
  await sql.transaction(async (tx) => {
    await tx.query({
      text: `SELECT pg_advisory_xact_lock(hashtext($1))`,
      values: [`runlight.migrate.${tables.schema}`],
    });
    for (const text of statements(tables)) await tx.query({ text });
  });
}
