import {
  type AgentRuntime,
  type AgentRuntimeStore,
  type Authorize,
  createAgentRuntime,
  createAgentRuntimeStore,
  createMemoryDriver,
  createRunHandlers,
  type RunHandlers,
} from '@runlight/runtime';

interface Runlight {
  store: AgentRuntimeStore;
  runtime: AgentRuntime;
  handlers: RunHandlers;
  authorize: Authorize;
}

/**
 * Who may do what with which run: the router asks it on EVERY route it serves (snapshot, events,
 * history, cancel, approvals, start, the many-runs routes) before anything is read. A stand-in
 * for your sessions — a `session` cookie equal to RUNLIGHT_SESSION — with bearer-token and
 * cookie-session examples in packages/runtime/src/http/README.md.
 */
const authorize: Authorize = ({ request }) => {
  const session = /(?:^|;\s*)session=([^;]+)/.exec(request.headers.get('cookie') ?? '')?.[1];
  const expected = process.env.RUNLIGHT_SESSION;
  if (expected && session === expected) return true;
  return new Response(null, { status: 401 });
};

function createRunlight(): Runlight {
  // The memory store forgets runs on restart; use @runlight/store-postgres in production.
  const store = createAgentRuntimeStore(createMemoryDriver());
  const runtime = createAgentRuntime({ store });
  return { store, runtime, handlers: createRunHandlers({ store, runtime }), authorize };
}

// One runtime per server process: route modules and dev-mode reloads share it.
const globalForRunlight = globalThis as typeof globalThis & { runlight?: Runlight };
globalForRunlight.runlight ??= createRunlight();
export const runlight: Runlight = globalForRunlight.runlight;
