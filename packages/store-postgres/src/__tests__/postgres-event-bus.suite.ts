import { ProtocolValidationError } from '@runlight/protocol';
import { type AgentRuntimeStore, createAgentRuntimeStore } from '@runlight/runtime';
import {
  busDelta as delta,
  followBus as follow,
  busLabel as label,
  startBusRun as startRun,
} from '@runlight/runtime/test-kit';
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { loneNotificationBytes } from '../bus-notification';
import { runlightTables } from '../migrate';
import { createPostgresDriver } from '../postgres-driver';
import { createPostgresEventBus, type PostgresEventBus } from '../postgres-event-bus';
import { toSqlClient } from '../sql-client';
import type { TestDatabase } from './test-databases';

export function busTests(open: () => Promise<TestDatabase>) {
  let database: TestDatabase;
  let schema: string;
  let store: AgentRuntimeStore;
  const buses: PostgresEventBus[] = [];
  const errors: unknown[] = [];

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
  it('keeps on B the live deltas since the last checkpoint, as RunEventHub does', async () => {
    const [a, b] = [await openBus(), await openBus()];
    const run = await startRun(store);
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
    const run = await startRun(store);
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
    const run = await startRun(store);
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
    const run = await startRun(store);
    const onB = follow(b, run.runId);
    const labels = Array.from({ length: 300 }, (_, index) => `d0.${index + 1}`);
    for (let seq = 1; seq <= 300; seq++)
      a.publish(delta(run.runId, 0, seq, 'x'.repeat(seq % 7 === 0 ? 1_200 : 20)));
    await vi.waitFor(() => expect(onB.seen).toEqual(labels), { timeout: 20_000 });
  });

  it('reports a foreign notification on its channel and keeps following', async () => {
    const seen: unknown[] = [];
    const b = await openBus({ onError: (error) => seen.push(error) });
    const a = await openBus({ onError: () => {} });
    const run = await startRun(store);
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
    // The delta's structural check names what is missing.
    expect(ProtocolValidationError.isInstance(seen[1])).toBe(true);
    expect((seen[1] as ProtocolValidationError).issues.map((issue) => issue.path)).toEqual([
      'runId',
      'baseRevision',
      'seq',
      'chunk',
    ]);
  });

  it('proves it hears with probes that no instance takes for an event or an error', async () => {
    // A probe that never came back would make a bus deaf within the wait below.
    const probing = { livenessIntervalMs: 10, livenessTimeoutMs: 1_000 };
    const [a, b] = [await openBus(probing), await openBus(probing)];
    const run = await startRun(store);
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
    const run = await startRun(store);
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
