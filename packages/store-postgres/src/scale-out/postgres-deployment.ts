import {
  type AgentRuntimeStore,
  type CloseOptions,
  createAgentRuntimeStore,
  type RunAccessPolicy,
  type RunEventBus,
  type RunEventSourceHealth,
} from '@runlight/runtime';
import pg from 'pg';
import { DEFAULT_SCHEMA, migrate } from '../migrate';
import { createPostgresDriver } from '../postgres-driver';
import {
  createPostgresEventBus,
  type PostgresEventBus,
  type PostgresEventBusOptions,
} from '../postgres-event-bus';
import {
  type DeploymentRunner,
  type DeploymentRunnerOptions,
  startDeploymentRunner,
} from './deployment-runner';
import { checkReadiness, type Readiness, sharedProbe } from './readiness';

/**
 * The event bus every process of a deployment shares: PostgreSQL's LISTEN/NOTIFY by default, or
 * another (`createRedisEventBus`) through the `bus` option. Closed by `deployment.close()`.
 */
export interface DeploymentBus extends RunEventBus {
  health?(): RunEventSourceHealth;
  close(): Promise<void>;
}

export interface PostgresDeploymentOptions {
  /** A node-postgres pool; or `connectionString` to open one (closed by `close`). */
  pool?: pg.Pool;
  /**
   * e.g. `postgres://postgres@127.0.0.1:5432/app`. Default (also when `undefined`, so
   * `process.env.DATABASE_URL` can be passed as is) `DATABASE_URL`, then node-postgres's `PG*`
   * environment variables.
   */
  connectionString?: string | undefined;
  /** Pool size when this function opens the pool. Default 10. */
  max?: number;
  /**
   * Schema of the tables (default `runlight`, also when `undefined`, so
   * `process.env.RUNLIGHT_SCHEMA` can be passed as is); the bus channel is `<schema>_events`.
   */
  schema?: string | undefined;
  /**
   * Run `migrate` first (idempotent; safe from several processes at once). Default true. In a
   * deployment, run `npx runlight-postgres-migrate` once per deploy and pass `false`.
   */
  migrate?: boolean;
  /**
   * Another event bus instead of LISTEN/NOTIFY, made once the store exists, e.g.
   * `bus: (store) => createRedisEventBus({ url: process.env.REDIS_URL, store })`. The
   * deployment's runners and gateways use it, `ready()` reads its health, `close()` closes it.
   */
  bus?: ((store: AgentRuntimeStore) => Promise<DeploymentBus>) | undefined;
  /**
   * The bus's LISTEN liveness check (`createPostgresEventBus`): a probe every
   * `livenessIntervalMs` (default 5000), given up after `livenessTimeoutMs` (default 5000).
   */
  livenessIntervalMs?: PostgresEventBusOptions['livenessIntervalMs'];
  livenessTimeoutMs?: PostgresEventBusOptions['livenessTimeoutMs'];
  /**
   * Hears bus failures (notify, read, parse, each loss of the LISTEN connection) and the errors
   * of the pool this function opens (an idle connection the server closed: the pool drops it).
   */
  onError?: (error: unknown) => void;
  /**
   * The deployment's access policy, handed back as `deployment.authorize` so every gateway
   * serves behind the same one: `startGateway({ ...deployment })`.
   */
  authorize?: RunAccessPolicy;
}

/**
 * TCP keepalive on the pool's sockets from this idle time on: NAT tables and proxies keep an
 * idle connection, and a peer that vanished is eventually noticed instead of waited on forever.
 */
const KEEPALIVE_INITIAL_DELAY_MS = 10_000;

/** What every runner and gateway process of one deployment shares: the store and the bus. */
export interface PostgresDeployment<Bus extends DeploymentBus = PostgresEventBus> {
  pool: pg.Pool;
  store: AgentRuntimeStore;
  bus: Bus;
  /** The `authorize` option, for `startGateway({ ...deployment })`. */
  authorize: RunAccessPolicy | undefined;
  /**
   * A runner's runtime on this store and bus, with a recovery loop on by default (every 1 s;
   * `recovery: false` opts out, `recovery: { resolveRun }` continues runs instead of ending
   * them `ownership_lost`). The runner's `close()` stops the loop and closes the runtime
   * gracefully (its in-flight runs handed off to the other runners).
   */
  startRunner(options?: DeploymentRunnerOptions): DeploymentRunner;
  /**
   * Whether this process should get traffic (`GET /ready` of `startGateway({ ...deployment })`):
   * not closing, the database answers `SELECT 1` within 2 s, the bus is `live`. Never rejects.
   * The query's answer is shared: concurrent calls wait for one, and it is reused for 1 s.
   */
  ready(): Promise<Readiness>;
  /**
   * Closes every runner gracefully (`runner.close(options)`: in-flight runs stop at a
   * checkpoint and their leases are handed off, at most `timeoutMs`, default 10 s), then stops
   * listening and, when this function opened the pool, ends it. What a SIGTERM handler calls;
   * idempotent.
   */
  close(options?: CloseOptions): Promise<void>;
}

/**
 * Connects one process (a runner or a gateway) to a deployment's PostgreSQL: the durable store
 * and the LISTEN/NOTIFY event bus, on one channel per schema. Runners pass the bus to
 * `createAgentRuntime({ events })`; gateways serve it with `startGateway`.
 *
 * @example
 * const deployment = await connectPostgresDeployment({ connectionString: process.env.DATABASE_URL });
 * const { runtime } = deployment.startRunner(); // a unique owner; recovery loop included
 */
export async function connectPostgresDeployment(
  options?: PostgresDeploymentOptions & { bus?: undefined },
): Promise<PostgresDeployment>;
export async function connectPostgresDeployment<Bus extends DeploymentBus>(
  options: PostgresDeploymentOptions & { bus: (store: AgentRuntimeStore) => Promise<Bus> },
): Promise<PostgresDeployment<Bus>>;
export async function connectPostgresDeployment(
  options?: PostgresDeploymentOptions,
): Promise<PostgresDeployment<DeploymentBus>>;
export async function connectPostgresDeployment(
  options: PostgresDeploymentOptions = {},
): Promise<PostgresDeployment<DeploymentBus>> {
  const owned = options.pool === undefined;
  const onError = options.onError ?? (() => {});
  const pool = options.pool ?? openPool(options, onError);
  const schema = options.schema ?? DEFAULT_SCHEMA;
  try {
    if (options.migrate !== false) await migrate(pool, { schema });
    const store = createAgentRuntimeStore(createPostgresDriver({ client: pool, schema }));
    const bus: DeploymentBus = options.bus
      ? await options.bus(store)
      : await createPostgresEventBus({
          pool,
          schema,
          channel: `${schema}_events`,
          livenessIntervalMs: options.livenessIntervalMs,
          livenessTimeoutMs: options.livenessTimeoutMs,
          onError,
        });
    // A cancel or an answer recorded here reaches the process executing the run at once (on a
    // bus that carries control notifications; the runner's poll finds it otherwise).
    store.controlRequests?.subscribe((runId) => bus.notifyControlRequest?.(runId));
    const runners: DeploymentRunner[] = [];
    let closing: Promise<void> | undefined;
    const close = async (closeOptions?: CloseOptions) => {
      // Before the bus and the pool: the hand-offs are written through them.
      await Promise.all(runners.map((runner) => runner.close(closeOptions)));
      await bus.close();
      if (owned) await pool.end();
    };
    // One `SELECT 1` per second at most, however often `/ready` is hit (sharedProbe).
    const readinessProbe = sharedProbe(() => pool.query('SELECT 1'));
    return {
      pool,
      store,
      bus,
      authorize: options.authorize,
      startRunner(runnerOptions) {
        const runner = startDeploymentRunner({ store, bus }, runnerOptions);
        runners.push(runner);
        return runner;
      },
      ready: () => checkReadiness({ closing: closing !== undefined, probe: readinessProbe, bus }),
      close(closeOptions) {
        // Idempotent: a SIGTERM after a SIGINT waits for the same close.
        closing ??= close(closeOptions);
        return closing;
      },
    };
  } catch (error) {
    if (owned) await pool.end().catch(() => {});
    throw error;
  }
}

/**
 * The pool this function owns. Without an `'error'` listener, PostgreSQL closing one idle
 * connection (a restart, a failover, `pg_terminate_backend`, a proxy's idle timeout) would be an
 * unhandled `'error'` event and take the process down; the pool has already dropped it.
 */
function openPool(options: PostgresDeploymentOptions, onError: (error: unknown) => void) {
  const pool = new pg.Pool({
    connectionString: options.connectionString ?? process.env.DATABASE_URL,
    max: options.max ?? 10,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_INITIAL_DELAY_MS,
  });
  pool.on('error', onError);
  return pool;
}
