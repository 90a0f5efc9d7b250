// lib/runlight.ts — one runtime per server process
import {
  type AgentRuntime,
  type AgentRuntimeStore,
  type Authorize,
  createAgentRuntime,
  createAgentRuntimeStore,
  createMemoryDriver,
  createMultiplexHandlers,
  createRunHandlers,
  type MultiplexHandlers,
  type RunHandlers,
} from '@runlight/runtime';
import { scriptedModel } from '@runlight/runtime/testing';

interface Runlight {
  store: AgentRuntimeStore;
  runtime: AgentRuntime;
  handlers: RunHandlers;
  multiplex: MultiplexHandlers;
  authorize: Authorize;
}

/**
 * The model of one run. A scripted answer, so the page works with no provider key; a script
 * plays once, so each run gets its own. With a provider: `openai('gpt-4o-mini')` from
 * `@ai-sdk/openai` (its AI SDK 7 major is 4).
 */
export const modelForRun = () =>
  scriptedModel([{ firstTokenMs: 400, tokenMs: 20, text: 'Hello from Runlight on Next.js.' }]);

/**
 * A stand-in for your sessions: signed in when the `session` cookie equals RUNLIGHT_SESSION.
 * Bearer-token and cookie-session examples: packages/runtime/src/http/README.md.
 */
export const isSignedIn = (session: string | undefined): boolean =>
  process.env.RUNLIGHT_SESSION !== undefined && session === process.env.RUNLIGHT_SESSION;

/**
 * Who may do what with which run: the router asks it on EVERY route it serves (snapshot, events,
 * history, cancel, approvals, start, the many-runs routes) before anything is read.
 */
const authorize: Authorize = ({ request }) => {
  const session = /(?:^|;\s*)session=([^;]+)/.exec(request.headers.get('cookie') ?? '')?.[1];
  return isSignedIn(session) ? true : new Response(null, { status: 401 });
};

function createRunlight(): Runlight {
  // The memory store forgets runs on restart; use @runlight/store-postgres in production.
  const store = createAgentRuntimeStore(createMemoryDriver());
  const runtime = createAgentRuntime({ store });
  const handlers = createRunHandlers({
    store,
    runtime,
    // POST /api/runs { prompt } → 201 { runId } once the run exists.
    start: ({ runId, body }) =>
      runtime.startRun({ runId, model: modelForRun(), messages: promptOf(body) }),
  });
  const multiplex = createMultiplexHandlers({ store, runtime });
  return { store, runtime, handlers, multiplex, authorize };
}

function promptOf(body: unknown): { role: 'user'; content: string }[] {
  const prompt = (body as { prompt?: unknown } | null)?.prompt;
  return [{ role: 'user', content: typeof prompt === 'string' ? prompt : 'Say hello.' }];
}

// One runtime per server process: route modules, server actions and dev-mode reloads share it.
const globalForRunlight = globalThis as typeof globalThis & { runlight?: Runlight };
globalForRunlight.runlight ??= createRunlight();
export const runlight: Runlight = globalForRunlight.runlight;
