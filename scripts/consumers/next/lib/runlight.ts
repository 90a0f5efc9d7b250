import {
  type AgentRuntime,
  type AgentRuntimeStore,
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
}

function createRunlight(): Runlight {
  // The memory store forgets runs on restart; use @runlight/store-postgres in production.
  const store = createAgentRuntimeStore(createMemoryDriver());
  const runtime = createAgentRuntime({ store });
  return { store, runtime, handlers: createRunHandlers({ store, runtime }) };
}

// One runtime per server process: route modules and dev-mode reloads share it.
const globalForRunlight = globalThis as typeof globalThis & { runlight?: Runlight };
globalForRunlight.runlight ??= createRunlight();
export const runlight: Runlight = globalForRunlight.runlight;
