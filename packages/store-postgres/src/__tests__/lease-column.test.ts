import { createAgentRuntimeStore, type StoredRun } from '@runlight/runtime';
import { evolveRun } from '@runlight/runtime/driver';
import { manualClock } from '@runlight/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, runlightTables } from '../migrate';
import { createPostgresDriver } from '../postgres-driver';
import { toSqlClient } from '../sql-client';
import { openPglite, type TestDatabase } from './test-databases';

/** The `runs` table as it was before `lease_expires_at` existed. */
const LEGACY_RUNS = (runs: string) => `CREATE TABLE ${runs} (
  id text PRIMARY KEY, revision integer NOT NULL, status text NOT NULL,
  updated_at timestamptz NOT NULL, assistant_revision integer, record json NOT NULL)`;

describe('runs.lease_expires_at: forward migration and the expired-lease query', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openPglite();
  });
  afterAll(async () => {
    await database?.close();
  });

  it('adds the column to an existing table, backfills it from the records, and indexes it', async () => {
    const clock = manualClock();
    // Runs written by the previous version (same records, no lease column).
    const fresh = await database.freshSchema();
    const store = createAgentRuntimeStore(
      createPostgresDriver({ client: database.client, schema: fresh }),
      { now: clock.now },
    );
    await store.createRun({ runId: 'leased' });
    const leased = await store.acquireRun('leased', { owner: 'a', leaseMs: 1_000 });
    await store.createRun({ runId: 'queued' });
    await store.createRun({ runId: 'ended' });
    const ended = await store.acquireRun('ended', { owner: 'a', leaseMs: 1_000 });
    await store.commitTerminal(
      'ended',
      { owner: 'a', fencingToken: ended.fencingToken, expectedRevision: ended.revision },
      { status: 'completed' },
    );
    const sql = toSqlClient(database.client);
    const legacy = `${fresh}_legacy`;
    const tables = runlightTables({ schema: legacy });
    await sql.query({ text: `CREATE SCHEMA ${legacy}` });
    await sql.query({ text: LEGACY_RUNS(tables.runs) });
    // That version stored the whole record with every write: fold each run's log into it.
    for (const runId of ['leased', 'queued', 'ended']) {
      const record = (await store.readEvents(runId)).reduce<StoredRun | null>(evolveRun, null)!;
      await sql.query({
        text: `INSERT INTO ${tables.runs} VALUES ($1, $2, $3, $4::timestamptz, NULL, $5::json)`,
        values: [
          runId,
          record.run.revision,
          record.run.status,
          record.run.updatedAt,
          JSON.stringify(record),
        ],
      });
    }

    await migrate(database.client, { schema: legacy });
    await migrate(database.client, { schema: legacy }); // idempotent

    const rows = await sql.query<{ id: string; lease_expires_at: Date | null }>({
      text: `SELECT id, lease_expires_at FROM ${tables.runs} ORDER BY id`,
    });
    expect(rows.map((row) => [row.id, row.lease_expires_at?.toISOString() ?? null])).toEqual([
      ['ended', null],
      ['leased', leased.leaseExpiresAt],
      ['queued', null],
    ]);
    const indexes = await sql.query<{ indexdef: string }>({
      text: `SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND indexname = 'runs_lease_expires_at'`,
      values: [legacy],
    });
    expect(indexes[0]?.indexdef).toMatch(
      /\(lease_expires_at\) WHERE \(lease_expires_at IS NOT NULL\)/,
    );

    const migrated = createAgentRuntimeStore(
      createPostgresDriver({ client: database.client, schema: legacy }),
      { now: clock.now },
    );
    expect(await migrated.findExpiredRuns()).toEqual([]);
    clock.advance(1_000);
    expect(await migrated.findExpiredRuns()).toEqual([
      { runId: 'leased', leaseExpiresAt: leased.leaseExpiresAt },
    ]);
    await sql.query({ text: `DROP SCHEMA ${legacy} CASCADE` });
  });
});
