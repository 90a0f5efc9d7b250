import {
  type AgentRuntime,
  type AgentRuntimeStore,
  type Authorize,
  createAgentRuntime,
  createAgentRuntimeStore,
  createMemoryDriver,
  createMultiplexHandlers,
  createRunHandlers,
  createRunRouter,
  RunEventHub,
  type RunRouter,
} from '@runlight/runtime';
import { convertToModelMessages, isStepCount, type UIMessage } from 'ai';
import { chatModel, chatToolApproval, chatTools } from './chat-model';

interface Runlight {
  store: AgentRuntimeStore;
  runtime: AgentRuntime;
  router: RunRouter;
}

/**
 * The example's access policy, asked on every route before anything is read. It has no users,
 * so reads are open; whatever costs model calls or changes a run (start, cancel, approvals)
 * must come from this site's own pages (`Sec-Fetch-Site: same-origin`, or an `Origin` equal to
 * the host), so another site cannot start paid runs through a visitor's browser. A real app
 * checks its session here instead: `({ request, runId, action }) => canAccess(user, runId, action)`.
 */
export const authorize: Authorize = ({ request, action }) => {
  if (action === 'read' || action === 'history') return true;
  const site = request.headers.get('sec-fetch-site');
  if (site !== null) return site === 'same-origin';
  const origin = request.headers.get('origin');
  return origin !== null && new URL(origin).host === request.headers.get('host');
};

/** One store, runtime and router per server process (kept across Next's dev reloads). */
export function runlight(): Runlight {
  const cached = (globalThis as { __runlight?: Runlight }).__runlight;
  if (cached) return cached;
  // The memory store forgets runs on restart; use @runlight/store-postgres in production.
  const store = createAgentRuntimeStore(createMemoryDriver());
  const hub = new RunEventHub();
  const runtime = createAgentRuntime({ store, events: hub });
  const router = createRunRouter({
    handlers: createRunHandlers({
      store,
      runtime,
      // `POST /api/runs`: the chat's start route (the transport POSTs { chatId, messages, … }).
      start: async ({ runId, body }) => {
        const { messages } = body as { messages: UIMessage[] };
        const last = messages.at(-1);
        const prompt =
          last?.parts.map((part) => (part.type === 'text' ? part.text : '')).join('') ?? '';
        return runtime.startRun({
          runId,
          model: chatModel(prompt),
          messages: await convertToModelMessages(messages, { tools: chatTools }),
          tools: chatTools,
          toolApproval: chatToolApproval,
          stopWhen: isStepCount(5),
        });
      },
    }),
    multiplex: createMultiplexHandlers({ store, runtime: hub }),
    basePath: '/api',
    authorize,
  });
  const created = { store, runtime, router };
  (globalThis as { __runlight?: Runlight }).__runlight = created;
  return created;
}
