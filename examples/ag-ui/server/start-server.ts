import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createAgUiRoute } from '@runlight/ag-ui';
import {
  type AgentRuntimeDriver,
  createAgentRuntime,
  createAgentRuntimeStore,
  createMemoryDriver,
  createNodeRequest,
  RunEventHub,
  writeNodeResponse,
} from '@runlight/runtime';
import { scriptedModel } from '@runlight/runtime/testing';
import { isStepCount, tool } from 'ai';
import { createServer as createViteServer, type PluginOption } from 'vite';
import { z } from 'zod';
import { Gates } from './gates';

export interface ExampleServer {
  url: string;
  /** Where the run is held; `release` lets it go on. */
  gates: Gates;
  close(): Promise<void>;
}

export interface ExampleServerOptions {
  port?: number;
  /** Hold the run at each gate until a test releases it (default: release after a delay). */
  heldByTest?: boolean;
  /** Where runs are kept (default: in memory, as `pnpm start` runs it). */
  driver?: AgentRuntimeDriver;
  /** The page's Vite root (default: this example's); another example serves its own page here. */
  root?: string;
  /** Vite plugins for that page (the assistant-ui example's React plugin). */
  plugins?: PluginOption[];
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The text of the answer before and after the approval. */
export const ANSWER = 'I can pay 5 for the order as soon as you approve it.';
export const AFTER_APPROVAL = 'Paid 5. The order is settled.';

/**
 * The run the page starts: compaction (held at `compaction`), a first model request that fails
 * with a retryable 503 (`retry-after-ms` 1.5 s), the retry held before any output
 * (`first-token`: the provider wait), the answer held half way (`mid-text`), a tool call that
 * needs approval, then more text once it is answered.
 */
function exampleRun(gates: Gates) {
  let compactions = 0;
  const model = scriptedModel([
    { error: { at: 'request', retryAfterMs: 1_500, status: 503, message: 'upstream overloaded' } },
    {
      tokenMs: 40,
      text: ANSWER,
      toolCalls: [{ toolName: 'pay', input: { amount: 5 } }],
    },
    { tokenMs: 40, text: AFTER_APPROVAL },
  ]);
  const doStream = model.doStream.bind(model);
  let calls = 0;
  model.doStream = async (options) => {
    const call = calls++;
    const result = await doStream(options);
    let parts = 0;
    const stream = result.stream.pipeThrough(
      new TransformStream({
        async transform(part, controller) {
          const index = parts++;
          if (call === 1 && index === 0) await gates.wait('first-token');
          if (call === 1 && index === 6) await gates.wait('mid-text');
          controller.enqueue(part);
        },
      }),
    );
    return { ...result, stream };
  };
  return {
    model,
    tools: {
      pay: tool({
        description: 'Pays an amount',
        inputSchema: z.object({ amount: z.number() }),
        execute: async ({ amount }) => ({ paid: amount }),
      }),
    },
    toolApproval: { pay: 'user-approval' as const },
    stopWhen: isStepCount(5),
    compact: async () => {
      if (compactions++ === 0) await gates.wait('compaction');
      return { status: 'not_needed' as const };
    },
  };
}

/**
 * The example's server: a real Runlight runtime (in memory unless `driver` says otherwise) behind `createAgUiRoute` at
 * `/api/ag-ui`, and the page through Vite — on one loopback port.
 */
export async function startExampleServer(
  options: ExampleServerOptions = {},
): Promise<ExampleServer> {
  const gates = new Gates(
    options.heldByTest ? null : { compaction: 2_000, 'first-token': 4_000, 'mid-text': 1_500 },
  );
  const store = createAgentRuntimeStore(options.driver ?? createMemoryDriver());
  const runtime = createAgentRuntime({ store, events: new RunEventHub(), owner: 'example-worker' });
  const agUi = createAgUiRoute({
    runtime,
    store,
    authorize: 'public',
    start: () => exampleRun(gates),
    heartbeatMs: 5_000,
  });

  async function api(incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> {
    const connection = new AbortController();
    outgoing.once('close', () => connection.abort());
    const request = createNodeRequest(incoming, connection.signal);
    const { pathname } = new URL(request.url);
    const release = /^\/test\/release\/([a-z-]+)$/.exec(pathname);
    if (release && options.heldByTest) gates.release(release[1]!);
    const response =
      pathname === '/api/ag-ui'
        ? await agUi(request)
        : release && options.heldByTest
          ? new Response(null, { status: 204 })
          : new Response('not found', { status: 404 });
    await writeNodeResponse(outgoing, response);
  }

  // The page's HMR socket rides on this server's own port: never Vite's shared default (24678),
  // which another Vite on the machine may hold, with a token this page does not have.
  const server = createServer();
  const vite = await createViteServer({
    configFile: false,
    root: options.root ?? ROOT,
    plugins: options.plugins ?? [],
    resolve: { conditions: ['@runlight/source', 'module', 'browser', 'development|production'] },
    logLevel: 'warn',
    clearScreen: false,
    server: { middlewareMode: true, hmr: false, ws: { server }, watch: null },
  });
  server.on('request', (incoming: IncomingMessage, outgoing: ServerResponse) => {
    if (incoming.url?.startsWith('/api/') || incoming.url?.startsWith('/test/')) {
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
    gates,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await vite.close();
      await runtime.close({ timeoutMs: 1_000 });
    },
  };
}
