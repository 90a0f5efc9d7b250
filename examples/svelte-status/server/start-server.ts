import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import {
  createAgentRuntime,
  createAgentRuntimeStore,
  createMemoryDriver,
  createRunHandlers,
  createRunRouter,
  RunEventHub,
  toNodeListener,
} from '@runlight/runtime';
import { gatedModel, type ScriptedStep, scriptedModel } from '@runlight/runtime/testing';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { createServer as createViteServer } from 'vite';

export interface ExampleServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Every API request the server received, in order (`METHOD /path`). */
  requests: string[];
  /** Lets every run held by `holdProvider` go on to its answer (and later runs at once). */
  releaseProvider(): void;
  close(): Promise<void>;
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The start body: how long the scripted model waits before its first token (the wait). */
function waitOf(body: unknown): number {
  const waitMs = (body as { waitMs?: unknown } | null)?.waitMs;
  return typeof waitMs === 'number' && waitMs >= 0 && waitMs <= 60_000 ? waitMs : 3000;
}

/**
 * The example's server on loopback: the real runtime (in-memory store, a scripted model that
 * waits `waitMs` for its first token, then writes a short answer) behind `createRunRouter` at
 * `/api`, and the Svelte app through Vite in middleware mode. No network, no keys.
 *
 * @example
 * const server = await startExampleServer({ port: 0 });
 */
export async function startExampleServer(
  options: {
    port?: number;
    watch?: boolean;
    /** Tests: each run also waits for the model until `releaseProvider()`. */
    holdProvider?: boolean;
  } = {},
): Promise<ExampleServer> {
  const store = createAgentRuntimeStore(createMemoryDriver());
  const hub = new RunEventHub();
  // A test holds every run's provider wait until `releaseProvider()`: as long as it looks.
  let released = options.holdProvider !== true;
  const held = new Set<() => void>();
  const modelFor = (steps: ScriptedStep[]) => {
    if (released) return scriptedModel(steps);
    const { model, open } = gatedModel(steps);
    held.add(open);
    return model;
  };
  const runtime = createAgentRuntime({ store, events: hub });
  const api = toNodeListener(
    createRunRouter({
      handlers: createRunHandlers({
        store,
        runtime,
        heartbeatMs: 1000,
        start: ({ runId, body }) =>
          runtime.startRun({
            runId,
            model: modelFor([
              { firstTokenMs: waitOf(body), tokenMs: 20, text: 'The status survived the reload.' },
            ]),
            messages: [{ role: 'user', content: 'Say something.' }],
          }),
      }),
      basePath: '/api',
      // A local example: every run is open to the page, on purpose.
      authorize: 'public',
    }),
  );
  // The page's HMR socket rides on this server's own port: never Vite's shared default (24678),
  // which another Vite on the machine may hold, with a token this page does not have.
  const server = createServer();
  const vite = await createViteServer({
    root: ROOT,
    configFile: false,
    plugins: [svelte()],
    resolve: {
      conditions: ['@runlight/source', 'svelte', 'module', 'browser', 'development|production'],
    },
    server: {
      middlewareMode: true,
      watch: options.watch === false ? null : {},
      hmr: false,
      ws: { server },
    },
    appType: 'spa',
    logLevel: 'warn',
  });
  const requests: string[] = [];
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    if (request.url?.startsWith('/api/')) {
      requests.push(`${request.method} ${request.url}`);
      api(request, response);
      return;
    }
    vite.middlewares(request, response);
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 5174, '127.0.0.1', resolve));
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
      await runtime.close({ timeoutMs: 1000 }).catch(() => {});
    },
  };
}
