import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import {
  type AgentRuntime,
  type AgentRuntimeStore,
  createAgentRuntime,
  createAgentRuntimeStore,
  createMemoryDriver,
  createMultiplexHandlers,
  createRunHandlers,
  createRunRouter,
  RunEventHub,
  type RunRouter,
} from '@runlight/runtime';
import { scriptedModel } from '@runlight/runtime/testing';
import { convertToModelMessages, type LanguageModel, type UIMessage } from 'ai';

interface Runlight {
  store: AgentRuntimeStore;
  runtime: AgentRuntime;
  router: RunRouter;
}

/** One store, runtime and router per server process (kept across Next's dev reloads). */
export function runlight(): Runlight {
  const cached = (globalThis as { __runlight?: Runlight }).__runlight;
  if (cached) return cached;
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
          messages: await convertToModelMessages(messages),
        });
      },
    }),
    multiplex: createMultiplexHandlers({ store, runtime: hub }),
    basePath: '/api',
    // An example without users: every run is open on purpose. An app passes its policy here
    // (`authorize: async ({ request, runId, action }) => …`); the router asks it on every route.
    authorize: 'public',
  });
  const created = { store, runtime, router };
  (globalThis as { __runlight?: Runlight }).__runlight = created;
  return created;
}

/**
 * The real provider when configured (`OPENAI_API_KEY`, or `RUNLIGHT_OPENAI_BASE_URL` for any
 * OpenAI-compatible server, with `RUNLIGHT_OPENAI_MODEL`), else a scripted model: no key needed.
 */
export function chatModel(prompt: string): LanguageModel {
  const baseURL = process.env.RUNLIGHT_OPENAI_BASE_URL || undefined;
  const apiKey = process.env.OPENAI_API_KEY || undefined;
  if (baseURL || apiKey) {
    const provider = createOpenAICompatible({
      name: 'openai-compatible',
      baseURL: baseURL ?? 'https://api.openai.com/v1',
      ...(apiKey ? { apiKey } : {}),
    });
    return provider.chatModel(process.env.RUNLIGHT_OPENAI_MODEL || 'gpt-4o-mini');
  }
  const answer = `You said "${prompt.slice(0, 80)}". This answer comes from a scripted model, word by word, as a durable Runlight run: reload the page mid-answer and it carries on where it was.`;
  return scriptedModel([{ firstTokenMs: 1200, tokenMs: 60, text: answer }]);
}
