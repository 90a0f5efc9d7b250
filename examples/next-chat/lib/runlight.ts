import {
  type AgentRuntime,
  type AgentRuntimeStore,
  type Authorize,
  createAgentRuntime,
  createAgentRuntimeStore,
  createChatRoutes,
  createMemoryDriver,
  createMultiplexHandlers,
  createRunHandlers,
  createRunRouter,
  RunEventHub,
  type RunRouter,
} from '@runlight/runtime';
import { isStepCount } from 'ai';
import { chatModel, chatToolApproval, chatTools } from './chat-model';

interface Runlight {
  store: AgentRuntimeStore;
  runtime: AgentRuntime;
  router: RunRouter;
  /** `POST /api/chat` starts the chat's run, `GET /api/chat?chatId=` gives its conversation. */
  chat: ReturnType<typeof createChatRoutes>;
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
  return fromThisSite(request);
};

/** `Sec-Fetch-Site: same-origin`, or an `Origin` equal to the host. */
export function fromThisSite(request: Request): boolean {
  const site = request.headers.get('sec-fetch-site');
  if (site !== null) return site === 'same-origin';
  const origin = request.headers.get('origin');
  return origin !== null && new URL(origin).host === request.headers.get('host');
}

/** One store, runtime and router per server process (kept across Next's dev reloads). */
export function runlight(): Runlight {
  const cached = (globalThis as { __runlight?: Runlight }).__runlight;
  if (cached) return cached;
  // The memory store forgets runs on restart; use @runlight/store-postgres in production.
  const store = createAgentRuntimeStore(createMemoryDriver());
  const hub = new RunEventHub();
  const runtime = createAgentRuntime({ store, events: hub });
  const router = createRunRouter({
    handlers: createRunHandlers({ store, runtime }),
    multiplex: createMultiplexHandlers({ store, runtime: hub }),
    basePath: '/api',
    authorize,
  });
  // The chat's start route in one line: validates useChat's request, converts its messages,
  // starts the run (idempotent per send) and stores the conversation with it.
  const chat = createChatRoutes({
    runtime,
    store,
    authorize, // the same policy as every run route
    tools: chatTools,
    run: ({ messages }) => {
      const last = messages.at(-1);
      const prompt =
        last?.parts.map((part) => (part.type === 'text' ? part.text : '')).join('') ?? '';
      return {
        model: chatModel(prompt),
        tools: chatTools,
        toolApproval: chatToolApproval,
        stopWhen: isStepCount(5),
      };
    },
  });
  const created = { store, runtime, router, chat };
  (globalThis as { __runlight?: Runlight }).__runlight = created;
  return created;
}
