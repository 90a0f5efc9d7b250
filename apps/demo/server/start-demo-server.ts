import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import {
  createMultiplexHandlers,
  createNodeRequest,
  createRunHandlers,
  createRunRouter,
  type RuntimeLogEntry,
  writeNodeResponse,
} from '@runlight/runtime';
import tailwindcss from '@tailwindcss/vite';
import react from '@vitejs/plugin-react';
import { createServer as createViteServer } from 'vite';
import { guardApiRequest, isServerSource } from './api-guard';
import { demoApi } from './demo-api';
import { DemoGates } from './demo-gates';
import { createDemoRuntime, type DemoRuntime, demoLog } from './demo-runtime';
import { demoError } from './json-response';
import { LiveConnections } from './live-connections';
import { runsListApi } from './runs-list-api';

export interface DemoServerOptions {
  /** `0` picks a free port (tests). Default 5173. */
  port?: number;
  /** Default `127.0.0.1`. */
  host?: string;
  /** The server log (provider error text goes only here). Default `console.error`. */
  log?: (entry: RuntimeLogEntry) => void;
  /**
   * Serve the React app through Vite (default true). API-only tests turn it off, so they do
   * not run Vite's dependency optimiser beside a browser test's server.
   */
  app?: boolean;
  /**
   * Watch the app's files and hot-reload the page (default true). Tests turn it off: a file
   * another engineer saves in a workspace package must not reload a page mid-test.
   */
  watch?: boolean;
  /** Vite's own log level. Default `info`. */
  viteLogLevel?: 'info' | 'warn' | 'error' | 'silent';
  /**
   * Vite's dependency cache (default `node_modules/.vite`). Dev servers started side by side
   * (test files in parallel workers) each need their own: one re-optimizing the dependencies
   * invalidates the pages of every other server sharing the folder.
   */
  viteCacheDir?: string;
  /**
   * Tests only: let a test hold scenario runs at named points (`server.gates`) instead of
   * racing their fixed timings. Off by default: `pnpm demo` keeps every scenario's timings.
   */
  gates?: boolean;
}

export interface DemoServer {
  /** `http://localhost:<port>` */
  url: string;
  port: number;
  demo: DemoRuntime;
  /** Where a test holds scenario runs; `null` unless started with `gates: true`. */
  gates: DemoGates | null;
  /**
   * The event streams open now (per-run `GET /api/runs/:id/events` and multiplexed
   * `GET /api/run-events`) and how many were ever opened: what the browsers cost the server.
   */
  eventStreams(): { open: number; opened: number };
  close(): Promise<void>;
}

const APP_ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The shadcn registry's sources: the playground shows what `shadcn add` installs. */
const REGISTRY = fileURLToPath(new URL('../../../registry/runlight/', import.meta.url));
const EVENTS_PATH = /^\/api\/runs\/([^/]+)\/events$/;
const MULTIPLEXED_PATH = '/api/run-events';
/** Vite's default deny list plus the server's own sources (defence beside `isServerSource`). */
const FS_DENY = ['.env', '.env.*', '*.{crt,pem}', '**/.git/**', `${APP_ROOT}server/**`];

/**
 * Starts the playground: one `node:http` server with the Vite React app (middleware mode)
 * and, under `/api`, the runtime's snapshot and SSE handlers plus the demo's own routes — on
 * the embedded in-memory store with scripted mock models. No network, no API keys.
 *
 * @example
 * const server = await startDemoServer({ port: 0 });
 * console.log(server.url); // http://localhost:41234
 * await server.close();
 */
export async function startDemoServer(options: DemoServerOptions = {}): Promise<DemoServer> {
  // One line per entry, the error only when there is one (never a trailing `undefined`).
  const log = options.log ?? demoLog;
  const onError = (error: unknown) =>
    log({ level: 'error', message: 'HTTP handler failed', runId: '-', error });
  const gates = options.gates ? new DemoGates() : null;
  const demo = createDemoRuntime({ log, ...(gates ? { gates } : {}) });
  const connections = new LiveConnections();
  const streams = { open: 0, opened: 0 };
  const runs = createRunRouter({
    handlers: createRunHandlers({
      store: demo.store,
      // The library's control routes (`POST /api/runs/:id/cancel`, `…/approvals`) reach the
      // runtime executing the run (scenarios run on different workers).
      runtime: {
        subscribe: (runId, listener) => demo.hub.subscribe(runId, listener),
        liveDeltas: (runId) => demo.hub.liveDeltas(runId),
        cancelRun: (runId) => demo.executorOf(runId)?.cancelRun(runId),
        resumeRun: (options) => {
          const executor = demo.executorOf(options.runId);
          if (executor) return executor.resumeRun(options);
          const refused = Promise.reject(
            new TypeError(`Run ${options.runId} was not started here`),
          );
          refused.catch(() => {});
          return { done: refused, created: refused };
        },
      },
      onError,
      // The playground shows owners and fencing tokens (run summary, event log): it opts in.
      exposeInternals: true,
    }),
    multiplex: createMultiplexHandlers({
      store: demo.store,
      runtime: demo.hub,
      onError,
      exposeInternals: true,
    }),
    basePath: '/api',
    // A playground on loopback: every run is open to the page, on purpose (an app passes its
    // policy here, and the router asks it on every route).
    authorize: 'public',
  });
  const demoRoutes = demoApi({ demo, dropConnections: (runId) => connections.drop(runId) });
  const listRoutes = runsListApi({
    store: demo.store,
    events: demo.hub,
    log,
    ...(gates ? { gates } : {}),
  });

  async function api(incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> {
    const connection = new AbortController();
    outgoing.once('close', () => connection.abort());
    const request = createNodeRequest(incoming, connection.signal);
    const pathname = new URL(request.url).pathname;
    const refusal = guardApiRequest(request, incoming.url ?? '/', () => port);
    if (refusal) {
      // A refused body is not read: close the connection instead of draining it.
      outgoing.shouldKeepAlive = false;
      await writeNodeResponse(outgoing, refusal);
      return;
    }
    const stream = EVENTS_PATH.exec(pathname);
    // The runs a multiplexed stream carries (`run=<id>@<cursor>`): a drop of any cuts it.
    const multiplexed =
      pathname === MULTIPLEXED_PATH
        ? new URL(request.url).searchParams.getAll('run').map((run) => run.split('@')[0] ?? '')
        : [];
    const runIds = stream ? [stream[1] ?? ''] : multiplexed;
    // Run ids are URL-safe (`RunIdSchema`), so the raw segment is the id the page drops by.
    // A drop cuts the socket, as a proxy or a flaky network would (a clean end would read as
    // the client going away).
    const drop = new AbortController();
    drop.signal.addEventListener('abort', () => outgoing.destroy());
    const releases = runIds.map((runId) => connections.add(runId, drop));
    if (stream || pathname === MULTIPLEXED_PATH) {
      streams.open++;
      streams.opened++;
      outgoing.once('close', () => streams.open--);
    }
    outgoing.once('close', () => {
      for (const release of releases) release();
    });
    let response: Response | null;
    try {
      response =
        (await listRoutes(request)) ?? (await demoRoutes(request)) ?? (await runs(request));
    } catch (error) {
      onError(error);
      response = demoError(500, 'internal', 'The server could not answer this request.');
    }
    // A body refused unread (413, 415) is not drained: the connection closes after the answer.
    if (response && response.status >= 400 && request.body !== null) {
      outgoing.shouldKeepAlive = false;
    }
    await writeNodeResponse(
      outgoing,
      response ?? demoError(404, 'not_found', `No route for ${request.method} ${pathname}`),
    );
  }

  const server = createServer();
  const vite =
    options.app === false
      ? null
      : await createViteServer({
          configFile: false,
          root: APP_ROOT,
          appType: 'spa',
          plugins: [react(), tailwindcss()],
          // The workspace packages' sources (their `@runlight/source` export), no build step;
          // the registry components under the paths `shadcn add` gives them in an app.
          resolve: {
            conditions: ['@runlight/source', 'module', 'browser', 'development|production'],
            alias: {
              '@/lib/runlight-ui': `${REGISTRY}lib/runlight-ui.tsx`,
              '@/components/runlight': `${REGISTRY}components/runlight`,
            },
          },
          // A dev server is development, also under a test runner's NODE_ENV=test: the page
          // shows what `pnpm demo` shows, `RunlightDevtools` included (it renders only then).
          define: { 'process.env.NODE_ENV': JSON.stringify('development') },
          logLevel: options.viteLogLevel ?? 'info',
          ...(options.viteCacheDir === undefined ? {} : { cacheDir: options.viteCacheDir }),
          clearScreen: false,
          server:
            options.watch === false
              ? {
                  middlewareMode: true,
                  hmr: false,
                  ws: { server },
                  watch: null,
                  fs: { deny: FS_DENY },
                }
              : { middlewareMode: true, hmr: { server }, fs: { deny: FS_DENY } },
        });
  server.on('request', (incoming: IncomingMessage, outgoing: ServerResponse) => {
    if (incoming.url?.startsWith('/api/')) {
      api(incoming, outgoing).catch((error: unknown) => {
        onError(error);
        outgoing.destroy();
      });
      return;
    }
    if (isServerSource(incoming.url ?? '/', APP_ROOT)) {
      void writeNodeResponse(outgoing, demoError(404, 'not_found', 'Not served'));
      return;
    }
    if (vite) vite.middlewares(incoming, outgoing);
    else void writeNodeResponse(outgoing, demoError(404, 'not_found', 'The app is not served'));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 5173, options.host ?? '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://localhost:${port}`,
    port,
    demo,
    gates,
    eventStreams: () => ({ ...streams }),
    async close() {
      demo.close();
      listRoutes.close();
      connections.dropAll();
      await vite?.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
