import {
  type AgentRuntimeDriver,
  createAgentRuntimeStore,
  type StoredRun,
} from '@runlight/runtime';
import { evolveRun } from '@runlight/runtime/driver';
import { expect, it } from 'vitest';
import { migrate, runlightTables } from '../migrate';
import { toSqlClient } from '../sql-client';
import { assistant, clock, completed, started } from './postgres-suite-fixtures';
import type { TestDatabase } from './test-databases';

/** Rows written by earlier versions of the driver: read, continued and migrated forward. */
export function describeMigrationTests(
  getDatabase: () => TestDatabase,
  freshDriver: () => Promise<{ schema: string; driver: AgentRuntimeDriver }>,
): void {
  it('reads a row written before the assistant pointer (checkpoint in run_assistants) and continues it', async () => {
    const { driver, schema } = await freshDriver();
    const sql = toSqlClient(getDatabase().client);
    const { runs, assistants, events } = runlightTables({ schema });
    const store = createAgentRuntimeStore(driver, { now: clock() });
    await store.createRun({ runId: 'run-1' });
    let run = await store.acquireRun('run-1', { owner: 'a', leaseMs: 30_000 });
    const guard = () => ({ owner: 'a', fencingToken: 1, expectedRevision: run.revision });
    run = await store.saveAssistantCheckpoint('run-1', guard(), assistant('legacy'));
    // Rewrite the row as the previous version stored it: no pointer in the record, the
    // message in run_assistants, `assistant_revision` naming it.
    const record = (await store.readEvents('run-1')).reduce<StoredRun | null>(evolveRun, null)!;
    const { assistant: _pointer, ...legacy } = record;
    await sql.query({
      text: `UPDATE ${runs} SET record = $1::json, assistant_revision = 3`,
      values: [JSON.stringify(legacy)],
    });
    await sql.query({
      text: `INSERT INTO ${assistants} (run_id, revision, message) VALUES ('run-1', 3, $1::json)`,
      values: [JSON.stringify(assistant('legacy'))],
    });
    expect((await sql.query({ text: `SELECT 1 FROM ${events}` })).length).toBe(3);
    expect((await store.getSnapshot('run-1')).assistant).toEqual({
      message: assistant('legacy'),
      revision: 3,
    });
    run = await store.appendAssistant('run-1', guard(), {
      messageId: 'assistant-1',
      baseRevision: 3,
      chunks: [{ type: 'data-note', data: 'later' }],
    });
    expect((await store.getSnapshot('run-1')).assistant?.message.parts).toEqual([
      { type: 'text', text: 'legacy' },
      { type: 'data-note', data: 'later' },
    ]);
  });

  it('keeps snapshots off the run row, and loads the later one when an earlier version wrote the row (rolling upgrade)', async () => {
    const { driver, schema } = await freshDriver();
    const sql = toSqlClient(getDatabase().client);
    const { runs, snapshots } = runlightTables({ schema });
    const store = createAgentRuntimeStore(driver, { now: clock(), snapshotEveryEvents: 2 });
    await store.createRun({ runId: 'run-1' });
    let run = await store.acquireRun('run-1', { owner: 'a', leaseMs: 30_000 });
    const guard = () => ({ owner: 'a', fencingToken: 1, expectedRevision: run.revision });
    const stored = async () => ({
      row: (await sql.query<{ record: unknown }>({ text: `SELECT record FROM ${runs}` }))[0]
        ?.record,
      snapshot: (
        await sql.query<{ revision: string }>({
          text: `SELECT record -> 'run' ->> 'revision' AS revision FROM ${snapshots}`,
        })
      )[0]?.revision,
    });
    expect(await stored()).toEqual({ row: null, snapshot: '2' });
    run = await store.recordRunOperation('run-1', guard(), started(0));
    // An instance of the previous version writes revision 3's record into the run row.
    const record = (await store.readEvents('run-1')).reduce<StoredRun | null>(evolveRun, null)!;
    await sql.query({
      text: `UPDATE ${runs} SET record = $1::json`,
      values: [JSON.stringify(record)],
    });
    expect(await driver.load('run-1')).toEqual(record);
    run = await store.recordRunOperation('run-1', guard(), completed(0));
    expect(await stored()).toEqual({ row: record, snapshot: '4' });
    expect((await driver.load('run-1')) as StoredRun).toMatchObject({ run: { revision: 4 } });
    expect(await createAgentRuntimeStore(driver).getRun('run-1')).toEqual(run);
  });

  it('migrates a schema of the previous version forward: its run in flight continues with event-only writes', async () => {
    const { driver, schema } = await freshDriver();
    const sql = toSqlClient(getDatabase().client);
    const { runs, events } = runlightTables({ schema });
    const before = createAgentRuntimeStore(driver, { now: clock() });
    await before.createRun({ runId: 'run-1' });
    let run = await before.acquireRun('run-1', { owner: 'a', leaseMs: 30_000 });
    const guard = () => ({ owner: 'a', fencingToken: 1, expectedRevision: run.revision });
    run = await before.recordRunOperation('run-1', guard(), started(0));
    run = await before.appendAssistant('run-1', guard(), {
      messageId: 'assistant-1',
      baseRevision: 0,
      chunks: [{ type: 'data-note', data: 'before the upgrade' }],
    });
    // Rewrite it as the previous version stored it: the whole record in every row (NOT NULL),
    // every event document naming its run.
    const record = (await before.readEvents('run-1')).reduce<StoredRun | null>(evolveRun, null)!;
    await sql.query({
      text: `UPDATE ${runs} SET record = $1::json`,
      values: [JSON.stringify(record)],
    });
    await sql.query({
      text: `UPDATE ${events} SET event = (jsonb_build_object('runId', run_id) || event::jsonb)::json`,
    });
    await sql.query({ text: `ALTER TABLE ${runs} ALTER COLUMN record SET NOT NULL` });

    await migrate(getDatabase().client, { schema });
    const after = createAgentRuntimeStore(driver, { now: clock() });
    expect(await after.getRun('run-1')).toEqual(run);
    run = await after.appendAssistant('run-1', guard(), {
      messageId: 'assistant-1',
      baseRevision: run.revision,
      chunks: [{ type: 'data-note', data: 'after it' }],
    });
    run = await after.recordRunOperation('run-1', guard(), completed(0));
    run = await after.commitTerminal('run-1', guard(), { status: 'completed' });
    // The old record stays the snapshot; the new writes are events folded onto it.
    expect(await driver.load('run-1')).toEqual(record);
    const reader = createAgentRuntimeStore(driver);
    expect(await reader.getRun('run-1')).toEqual(run);
    expect((await reader.getSnapshot('run-1')).assistant?.message.parts).toEqual([
      { type: 'data-note', data: 'before the upgrade' },
      { type: 'data-note', data: 'after it' },
    ]);
    const log = await reader.readEvents('run-1');
    expect(log.map((event) => [event.revision, event.runId])).toEqual(
      [1, 2, 3, 4, 5, 6, 7].map((revision) => [revision, 'run-1']),
    );
  });
}
