import type { PGliteInterface } from '@electric-sql/pglite';
import type { RunEvent } from '@runlight/protocol';
import { createAgentRuntime, createAgentRuntimeStore } from '@runlight/runtime';
import { scriptedModel } from '@runlight/runtime/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPostgresDriver } from '../postgres-driver';
import { createPostgresEventBus } from '../postgres-event-bus';
import { type Gateway, startGateway } from '../scale-out/gateway';
import { connectPostgresDeployment } from '../scale-out/postgres-deployment';
import { readEventStream } from './instance';
import {
  openPglite,
  serverLabel,
  serverPoolConfig,
  serverUnavailable,
  type TestDatabase,
} from './test-databases';

/** One process of the deployment: its own store and bus over the shared database. */
type Connect = (schema: string) => Promise<{
  store: ReturnType<typeof createAgentRuntimeStore>;
  bus: Awaited<ReturnType<typeof createPostgresEventBus>>;
  close(): Promise<void>;
}>;

function scaleOutTests(label: string, open: () => Promise<{ db: TestDatabase; connect: Connect }>) {
  describe(`runner + gateways (${label})`, () => {
    let db: TestDatabase;
    let connect: Connect;
    beforeAll(async () => {
      ({ db, connect } = await open());
    });
    afterAll(async () => {
      await db?.close();
    });

    it('lets a watcher on either gateway follow, live, a run that only the runner executes', async () => {
      const schema = await db.freshSchema();
      const runnerSide = await connect(schema);
      const sides = [await connect(schema), await connect(schema)];
      const gateways: Gateway[] = [];
      try {
        // The first gateway sends what is stored (an operator's); the second the public form.
        for (const [index, side] of sides.entries())
          gateways.push(
            await startGateway({
              store: side.store,
              bus: side.bus,
              exposeInternals: index === 0,
              authorize: 'public',
            }),
          );
        // The runner serves nothing; the gateways execute nothing.
        const runtime = createAgentRuntime({
          store: runnerSide.store,
          events: runnerSide.bus,
          owner: 'runner-1',
        });
        const runId = 'scale-out-1';
        await runnerSide.store.createRun({ runId });
        const published: RunEvent[] = [];
        runtime.subscribe(runId, (event) => published.push(event));
        const watchers = gateways.map((gateway) =>
          readEventStream(`${gateway.origin}/runs/${runId}/events`),
        );
        await vi.waitFor(() => {
          for (const side of sides) expect(side.bus.listenerCount(runId)).toBe(1);
        });
        const text = Array.from({ length: 30 }, (_, i) => `w${i} `);
        const run = await runtime.startRun({
          runId,
          model: scriptedModel([{ firstTokenMs: 10, tokenMs: 3, text }]),
          messages: [{ role: 'user', content: 'Go' }],
        }).done;
        expect(run.status).toBe('completed');

        const log = await runnerSide.store.readEvents(runId);
        const deltas = published.filter((event) => event.type === 'run-delta');
        for (const [index, watched] of (await Promise.all(watchers)).entries()) {
          const events = watched.map((message) => message.event);
          const form = index === 0 ? <T>(value: T) => value : publicForm;
          // Every durable event once, in order, as stored; every live delta as the runner sent it
          // (in the public form: without owner name and fencing token).
          expect(events.filter((event) => event.type !== 'run-delta')).toEqual(log.map(form));
          expect(events.filter((event) => event.type === 'run-delta')).toEqual(deltas.map(form));
          if (index === 1) expect(JSON.stringify(events)).not.toMatch(/runner-1|fencingToken/);
        }
        // A snapshot from either gateway is the one the runner wrote.
        for (const [index, gateway] of gateways.entries()) {
          const snapshot = await (await fetch(`${gateway.origin}/runs/${runId}`)).json();
          expect(snapshot.run).toEqual(index === 0 ? run : publicForm(run));
        }
      } finally {
        for (const gateway of gateways) await gateway.close();
        for (const side of [runnerSide, ...sides]) await side.close();
      }
    });
  });
}

scaleOutTests('PGlite', async () => {
  const db = await openPglite();
  const pglite = db.client as PGliteInterface;
  const connect: Connect = async (schema) => {
    const store = createAgentRuntimeStore(createPostgresDriver({ client: pglite, schema }));
    const bus = await createPostgresEventBus({ pglite, schema, channel: `${schema}_events` });
    return { store, bus, close: () => bus.close() };
  };
  return { db, connect };
});

describe.runIf(serverUnavailable === null)(serverLabel, () => {
  scaleOutTests('one pool per process, connectPostgresDeployment', async () => {
    const { openServer } = await import('./test-databases');
    const db = await openServer();
    const connect: Connect = async (schema) => {
      const pool = new pg.Pool({ ...serverPoolConfig(), max: 4 });
      const deployment = await connectPostgresDeployment({ pool, schema, migrate: false });
      return {
        store: deployment.store,
        bus: deployment.bus,
        async close() {
          await deployment.close();
          await pool.end();
        },
      };
    };
    return { db, connect };
  });
});

/** What a gateway without `exposeInternals` sends of a stored record (issue 22 item 10). */
function publicForm<T>(value: T): T {
  const { fencingToken: _token, ...rest } = value as T & { fencingToken?: number };
  if (!('owner' in rest)) return rest as T;
  const owner = (rest as { owner: string | null }).owner;
  return { ...rest, owner: owner === null ? null : expect.stringMatching(/^holder-/) } as T;
}
