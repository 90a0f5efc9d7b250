import { type ConformanceBus, describeBusConformance } from '@runlight/runtime/test-kit';
import { startTcpProxy, type TcpProxy } from '@runlight/test-utils';
import { describe } from 'vitest';
import { createRedisEventBus } from '../index';
import { openPostgresStore, postgresUnavailable } from './postgres-store';
import {
  adminClient,
  freshPrefix,
  REDIS_URL,
  redisLabel,
  redisUnavailable,
} from './redis-test-server';

/** Each bus reaches Redis through a proxy of its own: its faults touch no other connection. */
describe.runIf(redisUnavailable === null && postgresUnavailable === null)(redisLabel, () => {
  describeBusConformance('the Redis bus', {
    acrossProcesses: true,
    faults: true,
    setup: async () => {
      const database = await openPostgresStore();
      const prefix = freshPrefix();
      const proxies = new Map<ConformanceBus, TcpProxy>();
      const target = new URL(REDIS_URL);
      return {
        store: database.store,
        async openBus(onError) {
          const proxy = await startTcpProxy({
            host: target.hostname,
            port: Number(target.port || 6379),
          });
          const bus = await createRedisEventBus({
            url: `redis://${proxy.host}:${proxy.port}`,
            store: database.store,
            keyPrefix: prefix,
            livenessIntervalMs: 500,
            livenessTimeoutMs: 1_000,
            onError,
          });
          proxies.set(bus, proxy);
          return bus;
        },
        faults: {
          kill: (bus) => proxies.get(bus)!.drop(),
          down: (bus, down) => proxies.get(bus)!.refuse(down),
        },
        async close() {
          for (const proxy of proxies.values()) await proxy.close();
          const admin = await adminClient();
          await admin.dropKeys(prefix);
          await admin.close();
          await database.close();
        },
      };
    },
  });
});
