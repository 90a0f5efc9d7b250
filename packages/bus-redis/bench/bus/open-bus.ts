import { createRedisEventBus } from '@runlight/bus-redis';
import { createAgentRuntimeStore, createMemoryDriver } from '@runlight/runtime';
import { createPostgresEventBus } from '@runlight/store-postgres';
import pg from 'pg';

export type BusKind =
  | { kind: 'postgres'; connectionString: string; schema: string }
  | { kind: 'redis'; url: string; keyPrefix: string };

/**
 * The bus of one benchmark process. The deltas it carries touch no store (only durable
 * pointers are read from one), so the Redis bus gets an empty memory store.
 */
export async function openBus(bus: BusKind, onError: (error: unknown) => void) {
  if (bus.kind === 'redis') {
    const store = createAgentRuntimeStore(createMemoryDriver());
    return createRedisEventBus({ url: bus.url, keyPrefix: bus.keyPrefix, store, onError });
  }
  const pool = new pg.Pool({ connectionString: bus.connectionString, max: 4 });
  pool.on('error', onError);
  const events = await createPostgresEventBus({
    pool,
    schema: bus.schema,
    channel: `${bus.schema}_events`,
    onError,
  });
  const closeBus = events.close.bind(events);
  return Object.assign(events, {
    async close() {
      await closeBus();
      await pool.end();
    },
  });
}
