import { createAgentRuntimeStore } from '@runlight/runtime';
import { type ConformanceBus, describeBusConformance } from '@runlight/runtime/test-kit';
import { startTcpProxy, type TcpProxy } from '@runlight/test-utils';
import pg from 'pg';
import { describe } from 'vitest';
import { createPostgresDriver, createPostgresEventBus } from '../index';
import { openServer, serverLabel, serverPoolConfig, serverUnavailable } from './test-databases';

/** Each bus's pool goes through a proxy of its own: its faults touch no other connection. */
describe.runIf(serverUnavailable === null)(serverLabel, () => {
  describeBusConformance('the PostgreSQL bus', {
    acrossProcesses: true,
    setup: async () => {
      const database = await openServer();
      const schema = await database.freshSchema();
      const config = serverPoolConfig();
      const buses = new Map<ConformanceBus, { proxy: TcpProxy; pool: pg.Pool }>();
      return {
        store: createAgentRuntimeStore(createPostgresDriver({ client: database.client, schema })),
        async openBus(onError) {
          const proxy = await startTcpProxy({ host: config.host!, port: config.port! });
          const pool = new pg.Pool({ ...config, host: proxy.host, port: proxy.port, max: 4 });
          pool.on('error', () => {});
          const bus = await createPostgresEventBus({
            pool,
            schema,
            livenessIntervalMs: 500,
            livenessTimeoutMs: 1_000,
            onError,
          });
          buses.set(bus, { proxy, pool });
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
});
