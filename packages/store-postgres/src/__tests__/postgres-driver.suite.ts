import { randomBytes } from 'node:crypto';
import {
  type AgentRuntimeDriver,
  createAgentRuntimeStore,
  createMemoryDriver,
  FencingError,
  InvalidRunIdError,
  type StoredRun,
  StoreRecordError,
} from '@runlight/runtime';
import { evolveRun } from '@runlight/runtime/driver';
import { measureLongAnswer } from '@runlight/runtime/test-kit';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { migrate, runlightTables } from '../migrate';
import { createPostgresDriver } from '../postgres-driver';
import { toSqlClient } from '../sql-client';
import { assistant, clock, completed, started } from './postgres-suite-fixtures';
import type { TestDatabase } from './test-databases';

/** One run through every mutation kind; returns what a user of the store can observe. */
async function script(driver: AgentRuntimeDriver) {
  const store = createAgentRuntimeStore(driver, { now: clock() });
  await store.createRun({ runId: 'run-1' });
  let run = await store.acquireRun('run-1', { owner: 'worker-a', leaseMs: 30_000 });
  const guard = () => ({
    owner: 'worker-a',
    fencingToken: run.fencingToken,
    expectedRevision: run.revision,
  });
  run = await store.recordRunOperation('run-1', guard(), started(0));
  run = await store.saveAssistantCheckpoint('run-1', guard(), assistant('Hello \u0000 wörld'));
  run = await store.recordRunOperation('run-1', guard(), completed(0));
  run = await store.commitTerminal('run-1', guard(), { status: 'completed' });
  return {
    run,
    snapshot: await store.getSnapshot('run-1'),
    events: await store.readEvents('run-1'),
    after3: await store.readEvents('run-1', { afterRevision: 3 }),
    record: await driver.load('run-1'),
  };
}

/** The driver's own tests, on the database `open` yields. */
import { describeMigrationTests } from './postgres-migration.suite';

export function driverTests(open: () => Promise<TestDatabase>) {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await open();
  });
  afterAll(async () => {
    await database?.close();
  });
  const freshDriver = async () => {
    const schema = await database.freshSchema();
    return { schema, driver: createPostgresDriver({ client: database.client, schema }) };
  };

  it('behaves exactly like the memory driver through the store', async () => {
    const { driver } = await freshDriver();
    const observed = await script(driver);
    expect(observed).toEqual(await script(createMemoryDriver()));
    expect(observed.events.map((event) => event.revision)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(observed.after3.map((event) => event.revision)).toEqual([4, 5, 6]);
    expect(observed.snapshot.assistant?.message.parts).toEqual([
      { type: 'text', text: 'Hello \u0000 wörld' },
    ]);
  });

  it('migrates idempotently, also from several instances at once', async () => {
    const schema = await database.freshSchema(); // migrated once already
    await Promise.all([1, 2, 3].map(() => migrate(database.client, { schema })));
    const driver = createPostgresDriver({ client: database.client, schema });
    const store = createAgentRuntimeStore(driver);
    await store.createRun({ runId: 'after-migrations' });
    expect(await store.readEvents('after-migrations')).toHaveLength(1);
  });

  it('keeps prepared-statement names apart for 63-character schemas that share a long prefix', async () => {
    // PostgreSQL truncates identifiers to 63 bytes: names that held the schema collided.
    const prefix = `rl_${randomBytes(4).toString('hex')}_${'s'.repeat(47)}`;
    const schemas = [`${prefix}_one`, `${prefix}_two`];
    expect(schemas.map((schema) => schema.length)).toEqual([63, 63]);
    const sql = toSqlClient(database.client);
    try {
      for (const schema of schemas) await migrate(database.client, { schema });
      // One client (PGlite: one connection; a pool reuses connections) prepares both.
      for (const schema of schemas) {
        const store = createAgentRuntimeStore(
          createPostgresDriver({ client: database.client, schema }),
        );
        await store.createRun({ runId: 'run-1' });
        await store.acquireRun('run-1', { owner: 'worker-a', leaseMs: 30_000 });
        expect((await store.getSnapshot('run-1')).revision).toBe(2);
      }
    } finally {
      for (const schema of schemas) {
        await sql.query({ text: `DROP SCHEMA IF EXISTS "${schema}" CASCADE` });
      }
    }
  });

  it('refuses a run id with \\u0000 with the typed InvalidRunIdError, not a database error', async () => {
    const { driver } = await freshDriver();
    const store = createAgentRuntimeStore(driver);
    for (const attempt of [
      store.createRun({ runId: 'run\u0000x' }),
      store.getSnapshot('run\u0000x'),
      store.readEvents('run\u0000x'),
    ]) {
      const error = await attempt.then(
        () => null,
        (caught: unknown) => caught,
      );
      expect(InvalidRunIdError.isInstance(error)).toBe(true);
    }
  });

  it('answers null for a run it does not hold, and no events', async () => {
    const { driver } = await freshDriver();
    expect(await driver.load('nope')).toBeNull();
    expect(await driver.readEvents('nope', 0)).toEqual([]);
  });

  it('refuses a stale compare-and-set and an insert over an existing run, writing nothing', async () => {
    const { driver } = await freshDriver();
    const store = createAgentRuntimeStore(driver, { now: clock() });
    const created = await store.createRun({ runId: 'run-1' });
    // A run starts as its events: no snapshot yet.
    expect(await driver.load('run-1')).toBeNull();
    const snapshot = (await store.readEvents('run-1')).reduce<StoredRun | null>(evolveRun, null)!;
    const event = {
      type: 'run-status' as const,
      revision: 2,
      at: created.updatedAt,
      leaseExpiresAt: null,
      change: 'lease-renewed' as const,
      status: 'queued' as const,
      owner: null,
      fencingToken: 0,
      failure: null,
    };
    const next = evolveRun(snapshot, { ...event, runId: 'run-1' });
    expect(await driver.compareAndSet('run-1', null, next, [event])).toBe(false);
    expect(await driver.compareAndSet('run-1', 5, next, [event])).toBe(false);
    expect(await driver.compareAndSet('run-1', 2, null, [{ ...event, revision: 3 }])).toBe(false);
    expect(await driver.load('run-1')).toBeNull();
    expect(await driver.readEvents('run-1', 0)).toHaveLength(1);
    expect(await driver.compareAndSet('run-1', 1, next, [event])).toBe(true);
    expect(await driver.readEvents('run-1', 1)).toEqual([event]);
    expect(await driver.load('run-1')).toEqual(next);
    // Without a snapshot the head moves and the stored snapshot stays.
    const third = { ...event, revision: 3 };
    expect(await driver.compareAndSet('run-1', 2, null, [third])).toBe(true);
    expect(await driver.load('run-1')).toEqual(next);
    expect(await store.getRun('run-1')).toEqual(evolveRun(next, { ...third, runId: 'run-1' }).run);
  });

  it('lets exactly one of many racing writers of one revision win', async () => {
    const { driver } = await freshDriver();
    const store = createAgentRuntimeStore(driver);
    await store.createRun({ runId: 'run-1' });
    const [created] = await store.readEvents('run-1');
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, writer) => {
        const event = {
          type: 'run-status' as const,
          revision: 2,
          at: created!.at,
          leaseExpiresAt: null,
          change: 'lease-renewed' as const,
          status: 'queued' as const,
          owner: `w${writer}`,
          fencingToken: 0,
          failure: null,
        };
        return driver.compareAndSet('run-1', 1, null, [event]);
      }),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    const winner = results.indexOf(true);
    const events = await driver.readEvents('run-1', 1);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ revision: 2, owner: `w${winner}` });
  });

  it('writes the message once, in its event: the run row holds a pointer of a few bytes', async () => {
    const { driver, schema } = await freshDriver();
    const sql = toSqlClient(database.client);
    const { runs, assistants } = runlightTables({ schema });
    const store = createAgentRuntimeStore(driver);
    await store.createRun({ runId: 'run-1' });
    let run = await store.acquireRun('run-1', { owner: 'a', leaseMs: 30_000 });
    const guard = () => ({ owner: 'a', fencingToken: 1, expectedRevision: run.revision });
    run = await store.saveAssistantCheckpoint('run-1', guard(), assistant('x'.repeat(100_000)));
    run = await store.appendAssistant('run-1', guard(), {
      messageId: 'assistant-1',
      baseRevision: run.revision,
      chunks: [{ type: 'data-note', data: 'appended' }],
    });
    run = await store.recordRunOperation('run-1', guard(), started(0));
    const [row] = await sql.query<{ size: number }>({
      text: `SELECT coalesce(octet_length(record::text), 0) AS size FROM ${runs}`,
    });
    expect(row!.size).toBeLessThan(1_000);
    expect(await sql.query({ text: `SELECT 1 FROM ${assistants}` })).toEqual([]);
    expect((await store.getSnapshot('run-1')).assistant).toEqual({
      message: {
        ...assistant('x'.repeat(100_000)),
        parts: [
          { type: 'text', text: 'x'.repeat(100_000) },
          { type: 'data-note', data: 'appended' },
        ],
      },
      revision: 4,
    });
  });

  it.each([200, 2_000, 20_000])(
    '%i tokens at the default cadence: all bytes passed to the driver ≤ 3× the message, records of fixed size',
    async (tokens) => {
      const { driver } = await freshDriver();
      const { counts, finalBytes } = await measureLongAnswer(driver, tokens);
      expect(counts.bytes).toBeLessThanOrEqual(3 * finalBytes);
      expect(counts.maxRecordBytes).toBeLessThan(1_024);
      expect(counts.maxOperationRecordBytes).toBeLessThan(1_024);
    },
  );

  describeMigrationTests(() => database, freshDriver);

  it('fences the old owner after a takeover: its write stores nothing', async () => {
    const { driver } = await freshDriver();
    const now = clock();
    const store = createAgentRuntimeStore(driver, { now });
    await store.createRun({ runId: 'run-1' });
    const first = await store.acquireRun('run-1', { owner: 'a', leaseMs: 1 });
    const second = await store.acquireRun('run-1', { owner: 'b', leaseMs: 30_000 });
    const stale = {
      owner: 'a',
      fencingToken: first.fencingToken,
      expectedRevision: first.revision,
    };
    await expect(store.recordRunOperation('run-1', stale, started(0))).rejects.toSatisfy(
      FencingError.isInstance,
    );
    expect(await store.getRun('run-1')).toEqual(second);
    expect((await store.readEvents('run-1')).map((event) => event.revision)).toEqual([1, 2, 3]);
  });

  it('hands a corrupted record to the store, which refuses it', async () => {
    const { driver, schema } = await freshDriver();
    const store = createAgentRuntimeStore(driver);
    await store.createRun({ runId: 'run-1' });
    await toSqlClient(database.client).query({
      text: `UPDATE ${runlightTables({ schema }).runs} SET record = '{"run":{"id":"run-1"}}'`,
    });
    await expect(store.getRun('run-1')).rejects.toSatisfy(StoreRecordError.isInstance);
  });

  it('keeps revisions and events dense whatever the interleaving of two owners', async () => {
    const { driver } = await freshDriver();
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom('a', 'b'), { minLength: 2, maxLength: 8 }),
        async (writers) => {
          const runId = `run-${++runs}`;
          const store = createAgentRuntimeStore(driver);
          await store.createRun({ runId });
          const acquired = await store.acquireRun(runId, { owner: 'a', leaseMs: 30_000 });
          // Every writer names the same revision: one wins, the others see a conflict.
          const outcomes = await Promise.allSettled(
            writers.map((owner, index) =>
              store.recordRunOperation(
                runId,
                { owner, fencingToken: acquired.fencingToken, expectedRevision: acquired.revision },
                started(index),
              ),
            ),
          );
          const wins = outcomes.filter((outcome) => outcome.status === 'fulfilled');
          expect(wins.length).toBe(writers.includes('a') ? 1 : 0);
          const events = await store.readEvents(runId);
          expect(events.map((event) => event.revision)).toEqual(
            Array.from({ length: 2 + wins.length }, (_, index) => index + 1),
          );
        },
      ),
      { numRuns: 15, seed: 7_402 },
    );
  });
}
