/**
 * The bus a soak process serves runs through: the deployment's own LISTEN/NOTIFY bus
 * (`SOAK_BUS=postgres`, the default) or a Redis Streams bus (`SOAK_BUS=redis`, on the soak's
 * own `redis-server` at `SOAK_REDIS_URL`) over the same store; each error of the Redis bus is
 * told to the soak (`BusReport`).
 *
 * `@runlight/bus-redis` is imported from its source by path, not as a dependency: its own tests
 * depend on this package, and a dependency back would make the two packages a cycle.
 */
import type { RunEventBus } from '@runlight/runtime';
import { createRedisEventBus, RedisBusOutageError } from '../../../bus-redis/src/index';
import type { PostgresDeployment } from '../../src/scale-out/postgres-deployment';

export type SoakBus = 'postgres' | 'redis';

/** What a process tells the soak of each error its Redis bus reported (IPC). */
export interface BusReport {
  type: 'bus-report';
  /** An outage's start or end (`RedisBusOutageError`); null: any other error. */
  phase: 'started' | 'ended' | null;
  droppedDeltas: number;
}
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
    store: deployment.store,
    onError(error) {
      onError(error);
      // The soak checks each process reports a Redis outage twice: when it starts, when it ends.
      const report: BusReport = RedisBusOutageError.isInstance(error)
        ? { type: 'bus-report', phase: error.phase, droppedDeltas: error.droppedDeltas }
        : { type: 'bus-report', phase: null, droppedDeltas: 0 };
      process.send?.(report);
    },
  });
  return { bus, close: () => bus.close() };
}
