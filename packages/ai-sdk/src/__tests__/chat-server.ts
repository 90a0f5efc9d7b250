import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createAgentRuntime,
  createAgentRuntimeStore,
  createMemoryDriver,
  createRunHandlers,
  createRunRouter,
  RunEventHub,
  toNodeListener,
} from '@runlight/runtime';
import { type ScriptedStep, scriptedModel } from '@runlight/runtime/testing';
import { convertToModelMessages, jsonSchema, tool, type UIMessage } from 'ai';

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

const json = (status: number, body: unknown) => Response.json(body, { status });

/**
 * The real runtime over loopback HTTP for a chat: the run handlers under `/api/runs`, the
 * application's start route `POST /api/chat` (a scripted model per run, from `script`), and the
 * run-control routes `POST /api/runs/:id/cancel` and `…/approvals` (the fixed API).
 * `dropEventsAfterWrites` makes the server destroy each of the first `drops` event connections
 * after that many writes, mid-answer.
 */
export async function serveChat(options: {
  script: () => ScriptedStep[];
  drops?: number;
  dropEventsAfterWrites?: number;
}) {
  const store = createAgentRuntimeStore(createMemoryDriver());
  const hub = new RunEventHub();
  const runtime = createAgentRuntime({ store, events: hub, checkpointEveryEvents: 4 });
  const runs = createRunRouter({
    handlers: createRunHandlers({ store, runtime, heartbeatMs: 200 }),
    basePath: '/api',
  });
  let started = 0;
  const control = async (request: Request): Promise<Response | null> => {
    const { pathname } = new URL(request.url);
    if (request.method !== 'POST') return null;
    if (pathname === '/api/chat') {
      const body = (await request.json()) as { chatId: string; messages: UIMessage[] };
      const runId = `${body.chatId}-run-${++started}`;
      const tools = { pay: payTool };
      runtime.startRun({
        runId,
        model: scriptedModel(options.script()),
        messages: await convertToModelMessages(body.messages, { tools }),
        tools,
        toolApproval: { pay: 'user-approval' },
      });
      // The start route answers once the run exists, so its routes answer at once.
      await waitForRun(runId);
      return json(201, { runId });
    }
    const match = /^\/api\/runs\/([^/]+)\/(cancel|approvals)$/.exec(pathname);
    if (!match) return null;
    const runId = decodeURIComponent(match[1]!);
    if (match[2] === 'cancel') {
      runtime.cancelRun(runId);
      return json(202, { runId });
    }
    const body = (await request.json()) as {
      approvals: { approvalId: string; approved: boolean; reason?: string }[];
    };
    runtime.resumeRun({ runId, approvals: body.approvals }).done.catch(() => {});
    controlCalls.push({ runId, approvals: body.approvals });
    return json(202, { runId });
  };
  const controlCalls: { runId: string; approvals: unknown }[] = [];
  async function waitForRun(runId: string) {
    for (let i = 0; i < 200; i++) {
      try {
        await store.getRun(runId);
        return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    }
  }
  const listener = toNodeListener(async (request) => (await control(request)) ?? runs(request));
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
    baseUrl: `http://127.0.0.1:${port}/api`,
    stats: () => ({ eventConnections, dropped }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
