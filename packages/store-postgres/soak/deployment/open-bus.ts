/**
 * A soak process's deployment: the store on PostgreSQL (through the soak's proxy) and live
 * events on the deployment's own LISTEN/NOTIFY bus (`SOAK_BUS=postgres`, the default) or on a
 * Redis Streams bus (`SOAK_BUS=redis`, the soak's own `redis-server` at `SOAK_REDIS_URL`) —
 * `connectPostgresDeployment({ bus })`, as a deployment on Redis runs it. Each error of the
 * Redis bus is told to the soak (`BusReport`).
 *
 * `@runlight/bus-redis` is imported from its source by path, not as a dependency: its own tests
 * depend on this package, and a dependency back would make the two packages a cycle.
 */
import { createRedisEventBus, RedisBusOutageError } from '../../../bus-redis/src/index';
import {
  connectPostgresDeployment,
  type DeploymentBus,
  type PostgresDeployment,
} from '../../src/scale-out/postgres-deployment';

export type SoakBus = 'postgres' | 'redis';
export const SOAK_BUSES: readonly SoakBus[] = ['postgres', 'redis'];

/** What a process tells the soak of each error its Redis bus reported (IPC). */
export interface BusReport {
  type: 'bus-report';
  /** An outage's start or end (`RedisBusOutageError`); null: any other error. */
  phase: 'started' | 'ended' | null;
  /** Live deltas published during the outage, and of those dropped (the rest delivered). */
  sentDeltas: number;
  droppedDeltas: number;
}

function reportToSoak(error: unknown): void {
  const report: BusReport = RedisBusOutageError.isInstance(error)
    ? {
        type: 'bus-report',
        phase: error.phase,
        sentDeltas: error.sentDeltas,
        droppedDeltas: error.droppedDeltas,
      }
    : { type: 'bus-report', phase: null, sentDeltas: 0, droppedDeltas: 0 };
  process.send?.(report);
}

export function connectSoakDeployment(
  onError: (error: unknown) => void,
): Promise<PostgresDeployment<DeploymentBus>> {
  const options = {
    connectionString: process.env.DATABASE_URL,
    schema: process.env.RUNLIGHT_SCHEMA ?? 'runlight_soak',
    migrate: false,
    authorize: 'public' as const,
    onError,
  };
  if ((process.env.SOAK_BUS ?? 'postgres') !== 'redis') return connectPostgresDeployment(options);
  return connectPostgresDeployment({
    ...options,
    bus: (store) =>
      createRedisEventBus({
        url: process.env.SOAK_REDIS_URL,
        store,
        onError(error) {
          onError(error);
          // The soak checks each process reports a Redis outage twice: started, then ended.
          reportToSoak(error);
        },
      }),
  });
}
