export { ListenTimeoutError } from './listen-timeout-error';
export type { PostgresSchemaOptions, RunlightTables } from './migrate';
export { DEFAULT_SCHEMA, migrate, runlightTables } from './migrate';
export type { PgliteLike, PgliteQueryable } from './pglite-like';
export type { PostgresDriverOptions } from './postgres-driver';
export { createPostgresDriver } from './postgres-driver';
export type { PostgresEventBus, PostgresEventBusOptions } from './postgres-event-bus';
export { createPostgresEventBus } from './postgres-event-bus';
export type {
  DeploymentRecoveryOptions,
  DeploymentRunner,
  DeploymentRunnerOptions,
} from './scale-out/deployment-runner';
export { startDeploymentRunner } from './scale-out/deployment-runner';
export type { Gateway, GatewayOptions } from './scale-out/gateway';
export { startGateway } from './scale-out/gateway';
export type {
  DeploymentBus,
  PostgresDeployment,
  PostgresDeploymentOptions,
} from './scale-out/postgres-deployment';
export { connectPostgresDeployment } from './scale-out/postgres-deployment';
export type { Readiness } from './scale-out/readiness';
export type {
  ListenHandle,
  PostgresClient,
  SqlClient,
  SqlQueryable,
  SqlStatement,
} from './sql-client';
export { LIVENESS_PROBE_SQL, toSqlClient } from './sql-client';
