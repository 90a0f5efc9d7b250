/**
 * The bus a soak process serves runs through: the deployment's own LISTEN/NOTIFY bus
 * (`SOAK_BUS=postgres`, the default) or a Redis Streams bus (`SOAK_BUS=redis`, at
 * `SOAK_REDIS_URL` under `SOAK_REDIS_PREFIX`) over the same store.
 *
 * `@runlight/bus-redis` is imported from its source by path, not as a dependency: its own tests
 * depend on this package, and a dependency back would make the two packages a cycle.
 */
import type { RunEventBus } from '@runlight/runtime';
import { createRedisEventBus } from '../../../bus-redis/src/index';
import type { PostgresDeployment } from '../../src/scale-out/postgres-deployment';

export type SoakBus = 'postgres' | 'redis';
export const SOAK_BUSES: readonly SoakBus[] = ['postgres', 'redis'];

export async function openSoakBus(
  deployment: PostgresDeployment,
  onError: (error: unknown) => void,
): Promise<{ bus: RunEventBus; close(): Promise<void> }> {
  if ((process.env.SOAK_BUS ?? 'postgres') !== 'redis') {
    // Closed with the deployment.
    return { bus: deployment.bus, close: async () => {} };
  }
  const bus = await createRedisEventBus({
    url: process.env.SOAK_REDIS_URL,
    keyPrefix: process.env.SOAK_REDIS_PREFIX,
    store: deployment.store,
    onError,
  });
  return { bus, close: () => bus.close() };
}
