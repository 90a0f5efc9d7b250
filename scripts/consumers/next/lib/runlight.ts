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
export const modelForRun = () => scriptedModel([{ firstTokenMs: 400, tokenMs: 150, text: ANSWER }]);
// Slow enough (about 4 s) to reload the page mid-answer, or to stop it.
const ANSWER =
  'Hello from Runlight on Next.js. Reload the page while I write: the run, its text and its time go on where they are. Or stop me.';

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

/** What must exist once per server process: the store and the runtime executing its runs. */
function createCore(): Pick<Runlight, 'store' | 'runtime'> {
  // The memory store forgets runs on restart; use @runlight/store-postgres in production.
  const store = createAgentRuntimeStore(createMemoryDriver());
  return { store, runtime: createAgentRuntime({ store }) };
}

/** The routes over it: made again whenever this module is, so `next dev` picks edits up. */
function createRunlight({ store, runtime }: Pick<Runlight, 'store' | 'runtime'>): Runlight {
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

// One store and runtime per server process: route modules, server actions and dev-mode reloads
// share them (on globalThis). The handlers are this module's own, so an edit of `modelForRun`
// reaches the next run in `next dev` as it reaches /api/chat.
const globalForRunlight = globalThis as typeof globalThis & {
  runlight?: Pick<Runlight, 'store' | 'runtime'>;
};
globalForRunlight.runlight ??= createCore();
export const runlight: Runlight = createRunlight(globalForRunlight.runlight);
