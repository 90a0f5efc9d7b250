import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import {
  createAgentRuntime,
  createAgentRuntimeStore,
  createMemoryDriver,
  createNodeRequest,
  createRunHandlers,
  createRunRouter,
  RunEventHub,
  writeNodeResponse,
} from '@runlight/runtime';
import { gatedModel, type ScriptedStep, scriptedModel } from '@runlight/runtime/testing';
import vue from '@vitejs/plugin-vue';
import { createServer as createViteServer } from 'vite';

export interface ExampleServer {
  url: string;
  /** Every API request the server received, in order (`METHOD /path`). */
  requests: string[];
  /** Lets every run held by `holdProvider` go on to its answer (and later runs at once). */
  releaseProvider(): void;
  close(): Promise<void>;
}

export interface ExampleServerOptions {
  port?: number;
  /** How long the scripted model keeps the run waiting for its first output. */
  firstTokenMs?: number;
  /** Tests: each run also waits for the model until `releaseProvider()`. */
  holdProvider?: boolean;
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * The example's server: a real Runlight runtime (in memory) behind `createRunRouter` at `/api`,
 * `POST /api/start` starting a run of a scripted model that waits `firstTokenMs` before it
 * answers, and the Vue app through Vite — all on one loopback port.
 */
export async function startExampleServer(
  options: ExampleServerOptions = {},
): Promise<ExampleServer> {
  const store = createAgentRuntimeStore(createMemoryDriver());
  const events = new RunEventHub();
  const runtime = createAgentRuntime({ store, events, owner: 'example-worker' });
  const runs = createRunRouter({
    handlers: createRunHandlers({ store, runtime, heartbeatMs: 1_000 }),
    basePath: '/api',
    authorize: 'public',
  });
  const requests: string[] = [];
  // A test holds every run's provider wait until `releaseProvider()`: as long as it looks.
  let released = options.holdProvider !== true;
  const held = new Set<() => void>();
  const modelFor = (steps: ScriptedStep[]) => {
    if (released) return scriptedModel(steps);
    const { model, open } = gatedModel(steps);
    held.add(open);
    return model;
  };

  async function start(request: Request): Promise<Response> {
    const { runId } = (await request.json()) as { runId: string };
    const handle = runtime.startRun({
      runId,
      model: modelFor([
        {
          firstTokenMs: options.firstTokenMs ?? 4_000,
          tokenMs: 20,
          text: 'Hello from the scripted model on loopback.',
        },
      ]),
      messages: [{ role: 'user', content: 'Say hello' }],
    });
    handle.done.catch(() => {});
    await handle.created;
    return Response.json({ runId }, { status: 202 });
  }

  async function api(incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> {
    const connection = new AbortController();
    outgoing.once('close', () => connection.abort());
    const request = createNodeRequest(incoming, connection.signal);
    const { pathname } = new URL(request.url);
    requests.push(`${request.method} ${pathname}`);
    const response =
      request.method === 'POST' && pathname === '/api/start'
        ? await start(request)
        : ((await runs(request)) ?? new Response('not found', { status: 404 }));
    await writeNodeResponse(outgoing, response);
  }

  // The page's HMR socket rides on this server's own port: never Vite's shared default (24678),
  // which another Vite on the machine may hold, with a token this page does not have.
  const server = createServer();
  const vite = await createViteServer({
    configFile: false,
    root: ROOT,
    plugins: [vue()],
    resolve: { conditions: ['@runlight/source', 'module', 'browser', 'development|production'] },
    logLevel: 'warn',
    clearScreen: false,
    server: { middlewareMode: true, hmr: false, ws: { server }, watch: null },
  });
  server.on('request', (incoming: IncomingMessage, outgoing: ServerResponse) => {
    if (incoming.url?.startsWith('/api/')) {
      api(incoming, outgoing).catch((error: unknown) => {
        outgoing.destroy(error instanceof Error ? error : undefined);
      });
      return;
    }
    vite.middlewares(incoming, outgoing);
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    releaseProvider() {
      released = true;
      for (const open of held) open();
      held.clear();
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await vite.close();
    },
  };
}
