import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createRunHandlers,
  createRunRouter,
  type RunAccessPolicy,
  type RunCorsOptions,
  type RunEventSource,
  type RunHandlersOptions,
  type RunRouterOptions,
  type StartRun,
  toNodeListener,
} from '@runlight/runtime';
import { forwardStart } from './forward-start';
import { healthRoute } from './health-routes';
import type { Readiness } from './readiness';

export interface GatewayOptions {
  store: RunHandlersOptions['store'];
  /** Where runs executing in other processes are followed: the deployment's event bus. */
  bus: RunEventSource;
  port?: number;
  host?: string;
  /** Routes live under it, e.g. `/api`. Default `''`. */
  basePath?: string;
  /**
   * The `listen` backlog: connections the kernel completes while the process is busy. Default
   * 4096 (Linux caps it at `net.core.somaxconn`); Node's default 511 overflows when thousands
   * of watchers open a page at once, and overflowing SYNs are retried by clients after 1, 3,
   * 7… s.
   */
  backlog?: number;
  /**
   * The access policy of every route the gateway serves (`createRunRouter({ authorize })`):
   * an `Authorize` function, or `'public'` to serve every run to anyone on purpose. Required:
   * `undefined` (a deployment made without `authorize`, spread in) rejects with
   * `AccessPolicyError` and serves nothing. `connectPostgresDeployment({ authorize })` hands
   * its policy on as `deployment.authorize`: `startGateway({ ...deployment })`.
   */
  authorize: RunAccessPolicy | undefined;
  /** How often open event streams re-ask `authorize`. Default 60 000 ms. */
  reauthorizeMs?: number | undefined;
  /** Cross-origin access for pages on other origins (`createRunRouter({ cors })`). */
  cors?: RunCorsOptions | undefined;
  /**
   * Refuse requests from other sites on start, cancel and approvals (`403 cross_site`;
   * `createRunRouter({ refuseCrossSite })`): set it when browsers sign in with a cookie.
   */
  refuseCrossSite?: RunRouterOptions['refuseCrossSite'] | undefined;
  /**
   * Send runs' `owner` and `fencingToken` as stored (`createRunHandlers({ exposeInternals })`)
   * — for operator tools. Default `false`: browsers get the public form (no host name, pid or
   * fencing token).
   */
  exposeInternals?: boolean | undefined;
  onError?: (error: unknown) => void;
  /**
   * Where `POST {basePath}/runs` starts a run. Left out (with `startRunsAt`), the gateway
   * serves no start route. A runner process that serves starts gives its runtime's
   * `startRun` here (see docs/production.md): `start: ({ runId, body }) => runtime.startRun(…)`.
   */
  start?: StartRun | undefined;
  /**
   * The runners' internal address (e.g. `http://runners.internal:3002`): the gateway serves
   * `POST {basePath}/runs` by asking its access policy, then forwarding the request to
   * `{startRunsAt}{basePath}/runs` — a runner serving `start` behind the same policy — and
   * answering with the runner's response (a start no runner took is tried again, up to 3 times;
   * `503 runner_unavailable` when none answers within 10 s). See forward-start.ts.
   */
  startRunsAt?: string | undefined;
  /**
   * What `GET /ready` answers: `connectPostgresDeployment` hands `deployment.ready` over with
   * `...deployment` (the store answers, the bus is live, not closing). Default: the bus's health.
   */
  ready?: (() => Promise<Readiness>) | undefined;
}

export interface Gateway {
  server: Server;
  /** `http://host:port` it listens on. */
  origin: string;
  close(): Promise<void>;
}

/**
 * A gateway process's HTTP server: snapshots and SSE of runs that runner processes execute,
 * followed through the event bus. It executes no run, so nothing competes with serving on its
 * event loop; add gateways behind a load balancer to serve more watchers. Cancels and approval
 * answers it receives are recorded in the store (`202` = recorded durably) for the runner that
 * executes the run, which applies each exactly once. Starts go to a runner (`startRunsAt`), or
 * are executed here when the process is a runner (`start`). `GET /health` and `GET /ready` are
 * its probes (health-routes.ts).
 *
 * @example
 * const deployment = await connectPostgresDeployment({ connectionString, authorize });
 * const gateway = await startGateway({ ...deployment, port: 3001 }); // store, bus, authorize
 */
export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  if (options.start !== undefined && options.startRunsAt !== undefined) {
    throw new TypeError('startGateway: give `start` or `startRunsAt`, not both');
  }
  const start =
    options.start ??
    (options.startRunsAt === undefined
      ? undefined
      : forwardStart(options.startRunsAt, options.basePath ?? ''));
  const handlers = createRunHandlers({
    store: options.store,
    runtime: options.bus,
    onError: options.onError,
    exposeInternals: options.exposeInternals === true,
    ...(start === undefined ? {} : { start }),
  });
  const route = createRunRouter({
    handlers,
    basePath: options.basePath,
    // Checked by the router: no policy is `AccessPolicyError`, before a socket is opened.
    authorize: options.authorize as RunAccessPolicy,
    ...(options.reauthorizeMs === undefined ? {} : { reauthorizeMs: options.reauthorizeMs }),
    ...(options.cors === undefined ? {} : { cors: options.cors }),
    ...(options.refuseCrossSite === undefined ? {} : { refuseCrossSite: options.refuseCrossSite }),
  });
  let closing = false;
  const readiness = async (): Promise<Readiness> => {
    if (closing) return { ready: false, reason: 'closing' };
    if (options.ready) return options.ready();
    return options.bus.health?.() === 'deaf'
      ? { ready: false, reason: 'bus_deaf' }
      : { ready: true };
  };
  const serve = (request: Request) => healthRoute(request, readiness) ?? route(request);
  const server = createServer(toNodeListener(serve, { onError: options.onError }));
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: options.port ?? 0, host, backlog: options.backlog ?? 4096 }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    server,
    origin: `http://${host}:${port}`,
    async close() {
      closing = true;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
