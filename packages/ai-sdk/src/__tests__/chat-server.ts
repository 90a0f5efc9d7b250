import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createAgentRuntime,
  createAgentRuntimeStore,
  createChatRoutes,
  createMemoryDriver,
  createRunHandlers,
  createRunRouter,
  type RunAccessPolicy,
  RunEventHub,
  toNodeListener,
} from '@runlight/runtime';
import { type ScriptedStep, scriptedModel } from '@runlight/runtime/testing';
import { convertToModelMessages, jsonSchema, tool, type UIMessage } from 'ai';
import type { MockLanguageModelV4 } from 'ai/test';

const delay = (ms: number | undefined) =>
  ms ? new Promise<void>((resolve) => setTimeout(resolve, ms)) : Promise.resolve();

/** A tool the scripted model calls; the run waits for the user's approval before it runs. */
export const payTool = tool({
  description: 'Pays an amount',
  inputSchema: jsonSchema<{ amount: number }>({
    type: 'object',
    properties: { amount: { type: 'number' } },
    required: ['amount'],
  }),
  execute: async ({ amount }) => ({ paid: amount }),
});

/**
 * The real runtime over loopback HTTP for a chat, entirely on the library's routes under `/api`:
 * snapshots and events, the start route `POST /api/runs` (a scripted model per run, from
 * `script`), and the run-control routes `POST /api/runs/:id/cancel` and `…/approvals`.
 * `dropEventsAfterWrites` makes the server destroy each of the first `drops` event connections
 * after that many writes, mid-answer.
 */
export async function serveChat(options: {
  script: () => ScriptedStep[];
  drops?: number;
  dropEventsAfterWrites?: number;
  /** Every route answers 401 unless the request carries `authorization: Bearer <token>`. */
  token?: string;
  /** The start routes wait this long before starting the run (a slow start request). */
  startDelayMs?: number;
}) {
  const store = createAgentRuntimeStore(createMemoryDriver());
  const hub = new RunEventHub();
  const runtime = createAgentRuntime({ store, events: hub, checkpointEveryEvents: 4 });
  // Every cancel and approval answer the routes accept is recorded durably (202 = recorded):
  // what the app's users asked for, whichever process ends up applying it.
  const controlCalls: { runId: string; action: string }[] = [];
  const approvals: unknown[] = [];
  const requests = store.controlRequests!;
  const record = requests.record.bind(requests);
  requests.record = async (request) => {
    const recorded = await record(request);
    if (recorded) {
      const action = request.kind === 'cancel' ? 'cancel' : 'approve';
      controlCalls.push({ runId: request.runId, action });
      if (request.approvals) approvals.push(request.approvals);
    }
    return recorded;
  };
  const tools = { pay: payTool };
  /** With a token, every route (the chat's too) wants it; without, the test server is public. */
  const authorize: RunAccessPolicy =
    options.token === undefined
      ? 'public'
      : ({ request }) =>
          request.headers.get('authorization') === `Bearer ${options.token}`
            ? true
            : new Response(null, { status: 401 });
  const runs = createRunRouter({
    handlers: createRunHandlers({
      store,
      runtime: {
        subscribe: (runId, listener) => runtime.subscribe(runId, listener),
        liveDeltas: (runId) => runtime.liveDeltas(runId),
        cancelRun: (runId) => runtime.cancelRun(runId),
        resumeRun: (resume) => runtime.resumeRun(resume),
      },
      heartbeatMs: 200,
      start: async ({ runId, body }) => {
        await delay(options.startDelayMs);
        const { messages } = body as { chatId: string; messages: UIMessage[] };
        return runtime.startRun({
          runId,
          model: scriptedModel(options.script()),
          messages: await convertToModelMessages(messages, { tools }),
          tools,
          toolApproval: { pay: 'user-approval' },
        });
      },
    }),
    basePath: '/api',
    authorize,
  });
  // `POST /api/chat`: the one-line chat route (validates, converts, idempotent per request).
  const models: MockLanguageModelV4[] = [];
  const chat = createChatRoutes({
    runtime,
    store,
    authorize,
    tools,
    run: async () => {
      await delay(options.startDelayMs);
      const model = scriptedModel(options.script());
      models.push(model);
      return { model, tools, toolApproval: { pay: 'user-approval' } };
    },
  });
  const listener = toNodeListener(async (request) =>
    new URL(request.url).pathname === '/api/chat'
      ? request.method === 'GET'
        ? chat.GET(request)
        : chat.POST(request)
      : runs(request),
  );
  let eventConnections = 0;
  let dropped = 0;
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    if (request.url?.includes('/events') && eventConnections++ < (options.drops ?? 0)) {
      let writes = 0;
      const write = response.write.bind(response) as (chunk: unknown) => boolean;
      response.write = ((chunk: unknown) => {
        const result = write(chunk);
        if (++writes === (options.dropEventsAfterWrites ?? 6)) {
          dropped++;
          setImmediate(() => response.destroy());
        }
        return result;
      }) as typeof response.write;
    }
    listener(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    store,
    runtime,
    hub,
    controlCalls,
    approvals,
    models,
    baseUrl: `http://127.0.0.1:${port}/api`,
    stats: () => ({ eventConnections, dropped }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
