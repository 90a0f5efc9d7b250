import { createAgentRuntimeStore } from '@runlight/runtime';
import { type ConformanceBus, describeBusConformance } from '@runlight/runtime/test-kit';
import { startTcpProxy, type TcpProxy } from '@runlight/test-utils';
import pg from 'pg';
import { createPostgresDriver } from '../postgres-driver';
import { createPostgresEventBus } from '../postgres-event-bus';
import { serverPoolConfig, type TestDatabase } from './test-databases';

/**
 * The shared bus conformance suite on `open`'s database. On the server each bus's pool goes
 * through a TCP proxy of its own, so the fault cases cut that bus's connections and no other;
 * on PGlite (in-process, no sockets) the cases without faults run.
 */
export function busConformanceTests(name: 'server' | 'pglite', open: () => Promise<TestDatabase>) {
  const proxied = name === 'server';
  describeBusConformance(`the PostgreSQL bus (${name})`, {
    acrossProcesses: true,
    faults: proxied,
    setup: async () => {
      const database = await open();
      const schema = await database.freshSchema();
      const buses = new Map<ConformanceBus, { proxy: TcpProxy; pool: pg.Pool }>();
      /** A pool of its own through a proxy of its own (the server), or the PGlite instance. */
      const connect = async () => {
        if (!proxied) return { client: { pglite: database.client as never } };
        const config = serverPoolConfig();
        const proxy = await startTcpProxy({ host: config.host!, port: config.port! });
        const pool = new pg.Pool({ ...config, host: proxy.host, port: proxy.port, max: 4 });
        pool.on('error', () => {});
        return { client: { pool }, proxy, pool };
      };
      return {
        store: createAgentRuntimeStore(createPostgresDriver({ client: database.client, schema })),
        async openBus(onError) {
          const { client, proxy, pool } = await connect();
          const bus = await createPostgresEventBus({
            ...client,
            schema,
            // Its own channel: other suites' buses on the shared server announce nothing here.
            channel: `${schema}_events`,
            livenessIntervalMs: 500,
            livenessTimeoutMs: 1_000,
            onError,
          });
          if (proxy && pool) buses.set(bus, { proxy, pool });
          return bus;
        },
        faults: {
          kill: (bus) => buses.get(bus)!.proxy.drop(),
          down: (bus, down) => buses.get(bus)!.proxy.refuse(down),
        },
        async close() {
          for (const { proxy, pool } of buses.values()) {
            await proxy.close();
            await pool.end().catch(() => {});
          }
          await database.close();
        },
      };
    },
  });
}
