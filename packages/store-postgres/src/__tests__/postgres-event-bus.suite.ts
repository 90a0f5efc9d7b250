import type { RunDeltaEvent, RunEvent } from '@runlight/protocol';
import { type AgentRuntimeStore, createAgentRuntimeStore } from '@runlight/runtime';
import { assistantMessage, modelRequest } from '@runlight/test-utils';
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { loneNotificationBytes } from '../bus-notification';
import { runlightTables } from '../migrate';
import { createPostgresDriver } from '../postgres-driver';
import { createPostgresEventBus, type PostgresEventBus } from '../postgres-event-bus';
import { toSqlClient } from '../sql-client';
import type { TestDatabase } from './test-databases';

const delta = (runId: string, baseRevision: number, seq: number, text = `t${seq}`) =>
  ({
    type: 'run-delta',
    runId,
    baseRevision,
    seq,
    chunk: { type: 'text-delta', id: 'text-1', delta: text },
  }) as RunDeltaEvent;

/** What a listener saw, as short labels: `r3` a durable revision, `d2.1` delta base 2 seq 1. */
const label = (event: RunEvent) =>
  event.type === 'run-delta' ? `d${event.baseRevision}.${event.seq}` : `r${event.revision}`;

export function busTests(open: () => Promise<TestDatabase>) {
  let database: TestDatabase;
  let schema: string;
  let store: AgentRuntimeStore;
  const buses: PostgresEventBus[] = [];
  const errors: unknown[] = [];
  let runs = 0;

  beforeAll(async () => {
    database = await open();
    schema = await database.freshSchema();
    store = createAgentRuntimeStore(createPostgresDriver({ client: database.client, schema }));
  });
  afterEach(async () => {
    await Promise.all(buses.splice(0).map((bus) => bus.close()));
    expect(errors.splice(0)).toEqual([]);
  });
  afterAll(async () => {
    await database?.close();
  });

  const channel = () => `${schema}_events`;
  const openBus = async (
    extra: {
      maxPayloadBytes?: number;
      livenessIntervalMs?: number;
      livenessTimeoutMs?: number;
      onError?: (e: unknown) => void;
    } = {},
  ) => {
    const client =
      database.name === 'PGlite'
        ? { pglite: database.client as never }
        : { pool: database.client as never };
    const bus = await createPostgresEventBus({
      ...client,
      schema,
      channel: channel(),
      onError: (error) => errors.push(error),
      ...extra,
    });
    buses.push(bus);
    return bus;
  };
  const follow = (bus: PostgresEventBus, runId: string) => {
    const seen: string[] = [];
    const events: RunEvent[] = [];
    const stop = bus.subscribe(runId, (event) => {
      seen.push(label(event));
      events.push(event);
    });
    return { seen, events, stop };
  };

  /** A run on the shared store; `next()` commits one more durable event and returns it. */
  async function startRun() {
    const runId = `bus-run-${++runs}`;
    await store.createRun({ runId });
    let run = await store.acquireRun(runId, { owner: 'a', leaseMs: 60_000 });
    let step = 0;
    let phase: 'started' | 'completed' = 'completed';
    const guard = () => ({
      owner: 'a',
      fencingToken: run.fencingToken,
      expectedRevision: run.revision,
    });
    const committed = async () =>
      (await store.readEvents(runId, { afterRevision: run.revision - 1 }))[0]!;
    return {
      runId,
      created: async () => (await store.readEvents(runId)).slice(0, 2),
      async operation() {
        phase = phase === 'started' ? 'completed' : 'started';
        if (phase === 'started') step++;
        run = await store.recordRunOperation(runId, guard(), modelRequest(step, phase));
        return committed();
      },
      async checkpoint(text: string) {
        run = await store.saveAssistantCheckpoint(runId, guard(), assistantMessage(text));
        return committed();
      },
      /** Completes the operation in flight, if any, and the run: one or two events. */
      async end() {
        const events = phase === 'started' ? [await this.operation()] : [];
        run = await store.commitTerminal(runId, guard(), { status: 'completed' });
        return [...events, await committed()];
      },
    };
  }

  it('lets a subscriber on instance B follow durable events and deltas published on A, in order', async () => {
    const [a, b] = [await openBus(), await openBus()];
    const run = await startRun();
    const onA = follow(a, run.runId);
    const onB = follow(b, run.runId);
    a.publish(await run.operation()); // r3
    a.publish(delta(run.runId, 0, 1));
    a.publish(delta(run.runId, 0, 2));
    a.publish(await run.checkpoint('t1t2')); // r4: its row is read by B before d4.1 is delivered
    a.publish(delta(run.runId, 4, 1));
    for (const event of await run.end()) a.publish(event); // r5, r6
    const expected = ['r3', 'd0.1', 'd0.2', 'r4', 'd4.1', 'r5', 'r6'];
    expect(onA.seen).toEqual(expected); // the publisher's own subscribers, at once
    await vi.waitFor(() => expect(onB.seen).toEqual(expected));
    // B read the durable events from the event log: they equal what the store holds.
    expect(onB.events.filter((event) => event.type !== 'run-delta')).toEqual(
      await store.readEvents(run.runId, { afterRevision: 2 }),
    );
  });

  it('keeps on B the live deltas since the last checkpoint, as RunEventHub does', async () => {
    const [a, b] = [await openBus(), await openBus()];
    const run = await startRun();
    a.publish(await run.operation());
    for (let seq = 1; seq <= 3; seq++) a.publish(delta(run.runId, 0, seq));
    await vi.waitFor(() =>
      expect(b.liveDeltas(run.runId).map(label)).toEqual(['d0.1', 'd0.2', 'd0.3']),
    );
    a.publish(await run.checkpoint('t1t2t3'));
    a.publish(delta(run.runId, 4, 1));
    await vi.waitFor(() => expect(b.liveDeltas(run.runId).map(label)).toEqual(['d4.1']));
    for (const event of await run.end()) a.publish(event);
    await vi.waitFor(() => expect(b.liveDeltas(run.runId)).toEqual([]));
  });

  it('carries a delta larger than a NOTIFY payload through a row, intact', async () => {
    const [a, b] = [await openBus(), await openBus()];
    const run = await startRun();
    const onB = follow(b, run.runId);
    const big = delta(run.runId, 0, 2, 'ü'.repeat(20_000)); // 40 000 bytes of UTF-8
    a.publish(delta(run.runId, 0, 1));
    a.publish(big);
    a.publish(delta(run.runId, 0, 3));
    await vi.waitFor(() => expect(onB.seen).toEqual(['d0.1', 'd0.2', 'd0.3']));
    expect(onB.events[1]).toEqual(big);
    expect(b.liveDeltas(run.runId)[1]).toEqual(big);
  });

  it('sends a delta filling the payload limit inline, and one byte more through a row', async () => {
    const [a, b] = [await openBus(), await openBus()];
    const run = await startRun();
    const onB = follow(b, run.runId);
    const sized = (seq: number, bytes: number) => {
      const empty = loneNotificationBytes(a.instanceId, {
        kind: 'delta',
        event: delta(run.runId, 0, seq, ''),
      });
      return delta(run.runId, 0, seq, 'a'.repeat(bytes - empty));
    };
    const rows = async () =>
      (
        await toSqlClient(database.client).query<{ count: number }>({
          text: `SELECT count(*)::integer AS count FROM ${runlightTables({ schema }).liveDeltas} WHERE run_id = $1`,
          values: [run.runId],
        })
      )[0]!.count;
    a.publish(sized(1, 7_900)); // the default limit; PostgreSQL refuses 8000 bytes and more
    await a.flushed();
    expect(await rows()).toBe(0);
    a.publish(sized(2, 7_901));
    await a.flushed();
    expect(await rows()).toBe(1);
    await vi.waitFor(() => expect(onB.seen).toEqual(['d0.1', 'd0.2']));
    expect(onB.events).toEqual([sized(1, 7_900), sized(2, 7_901)]);
  });

  it('delivers a burst of deltas in seq order however they are batched', async () => {
    const [a, b] = [await openBus({ maxPayloadBytes: 1_000 }), await openBus()];
    const run = await startRun();
    const onB = follow(b, run.runId);
    const labels = Array.from({ length: 300 }, (_, index) => `d0.${index + 1}`);
    for (let seq = 1; seq <= 300; seq++)
      a.publish(delta(run.runId, 0, seq, 'x'.repeat(seq % 7 === 0 ? 1_200 : 20)));
    await vi.waitFor(() => expect(onB.seen).toEqual(labels), { timeout: 20_000 });
  });

  it('reads a revision whose publication never arrived from the event log, and drops repeats', async () => {
    const [a, b] = [await openBus(), await openBus()];
    const run = await startRun();
    const onB = follow(b, run.runId);
    const third = await run.operation();
    a.publish(third);
    await vi.waitFor(() => expect(onB.seen).toEqual(['r3']));
    await run.operation(); // r4 is committed but its publication is lost
    const fifth = await run.operation();
    a.publish(fifth);
    a.publish(third);
    a.publish(fifth);
    const sixth = await run.operation();
    a.publish(sixth);
    await vi.waitFor(() => expect(onB.seen).toEqual(['r3', 'r4', 'r5', 'r6']));
  });

  it('reports a foreign notification on its channel and keeps following', async () => {
    const seen: unknown[] = [];
    const b = await openBus({ onError: (error) => seen.push(error) });
    const a = await openBus({ onError: () => {} });
    const run = await startRun();
    const onB = follow(b, run.runId);
    const sql = toSqlClient(database.client);
    await sql.query({ text: 'SELECT pg_notify($1, $2)', values: [channel(), 'not json'] });
    await sql.query({
      text: 'SELECT pg_notify($1, $2)',
      values: [
        channel(),
        '{"instanceId":"x","messages":[{"kind":"delta","event":{"type":"run-delta"}}]}',
      ],
    });
    a.publish(delta(run.runId, 0, 1));
    await vi.waitFor(() => expect(onB.seen).toEqual(['d0.1']));
    expect(seen).toHaveLength(2);
  });

  it('reports a pointer to an event its event log does not hold (instances on other schemas)', async () => {
    const seen: unknown[] = [];
    const b = await openBus({ onError: (error) => seen.push(error) });
    const a = await openBus();
    const onB = follow(b, 'elsewhere');
    a.publish({
      type: 'run-status',
      runId: 'elsewhere',
      revision: 1,
      at: '2026-12-02T12:00:00.000Z',
      change: 'created',
      status: 'queued',
      owner: null,
      fencingToken: 0,
      failure: null,
    });
    await vi.waitFor(() => expect(seen).toHaveLength(1));
    expect(String(seen[0])).toMatch(/event 1 is not in .*same schema/);
    expect(onB.seen).toEqual([]);
  });

  it('proves it hears with probes that no instance takes for an event or an error', async () => {
    // A probe that never came back would make a bus deaf within the wait below.
    const probing = { livenessIntervalMs: 10, livenessTimeoutMs: 1_000 };
    const [a, b] = [await openBus(probing), await openBus(probing)];
    const run = await startRun();
    const onB = follow(b, run.runId);
    const healths: string[] = [];
    b.onHealthChange((health) => healths.push(health));
    await new Promise((resolve) => setTimeout(resolve, 1_500)); // many probes each way
    a.publish(delta(run.runId, 0, 1));
    await vi.waitFor(() => expect(onB.seen).toEqual(['d0.1']));
    expect([a.health(), b.health()]).toEqual(['live', 'live']);
    expect(healths).toEqual([]); // and `errors` stays empty (afterEach)
  });

  it('stops delivering after unsubscribe and after close', async () => {
    const [a, b] = [await openBus(), await openBus()];
    const run = await startRun();
    const onB = follow(b, run.runId);
    a.publish(delta(run.runId, 0, 1));
    await vi.waitFor(() => expect(onB.seen).toEqual(['d0.1']));
    onB.stop();
    expect(b.listenerCount(run.runId)).toBe(0);
    const again = follow(b, run.runId);
    await b.close();
    a.publish(delta(run.runId, 0, 2));
    await a.flushed();
    const witness = await openBus();
    const onWitness = follow(witness, run.runId);
    a.publish(delta(run.runId, 0, 3));
    await vi.waitFor(() => expect(onWitness.seen).toEqual(['d0.3']));
    expect(onB.seen).toEqual(['d0.1']);
    expect(again.seen).toEqual([]);
  });
}

/** Needs a server: it kills the LISTEN connection of a pool. */
export function busServerTests(openServer: () => Promise<TestDatabase>) {
  it('listens again after its connection is killed and reads what it missed from the event log', async () => {
    const database = await openServer();
    try {
      const schema = await database.freshSchema();
      const store = createAgentRuntimeStore(
        createPostgresDriver({ client: database.client, schema }),
      );
      const errors: unknown[] = [];
      const open = (onError: (error: unknown) => void) =>
        createPostgresEventBus({
          pool: database.client as never,
          schema,
          channel: `${schema}_events`,
          onError,
        });
      const a = await open(() => {});
      const b = await open((error) => errors.push(error));
      await store.createRun({ runId: 'reconnect' });
      const acquired = await store.acquireRun('reconnect', { owner: 'a', leaseMs: 60_000 });
      const seen: string[] = [];
      b.subscribe('reconnect', (event) => seen.push(label(event)));
      await store.recordRunOperation(
        'reconnect',
        { owner: 'a', fencingToken: 1, expectedRevision: acquired.revision },
        modelRequest(0),
      );
      const [third] = await store.readEvents('reconnect', { afterRevision: 2 });
      a.publish(third!);
      await vi.waitFor(() => expect(seen).toEqual(['r3']));
      // Kill every LISTEN connection on the channel (the server restarting, a proxy timing out).
      await toSqlClient(database.client).query({
        text: `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
               WHERE query = $1 AND pid <> pg_backend_pid()`,
        values: [`LISTEN "${schema}_events"`],
      });
      await vi.waitFor(() => expect(errors.length).toBeGreaterThan(0));
      // Committed and announced while B may still be reconnecting: it arrives either way.
      const fourth = await store.recordRunOperation(
        'reconnect',
        { owner: 'a', fencingToken: 1, expectedRevision: 3 },
        modelRequest(0, 'completed'),
      );
      a.publish((await store.readEvents('reconnect', { afterRevision: fourth.revision - 1 }))[0]!);
      await vi.waitFor(() => expect(seen).toEqual(['r3', 'r4']), { timeout: 10_000 });
      a.publish(delta('reconnect', 0, 1));
      await vi.waitFor(() => expect(seen).toEqual(['r3', 'r4', 'd0.1']), { timeout: 10_000 });
      await a.close();
      await b.close();
    } finally {
      await database.close();
    }
  });
}
