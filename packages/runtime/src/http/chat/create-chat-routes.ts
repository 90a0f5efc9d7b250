import type { AgentRuntimeStore } from '../../store/agent-runtime-store';
import { createChatReadRoute } from './chat-conversation';
import { type ChatStartRouteOptions, createChatStartRoute } from './create-chat-start-route';

/**
 * A chat's two routes on one path: `POST` starts the run for `useChat`'s request
 * (`createChatStartRoute`), `GET ?chatId=` gives the whole conversation back
 * (`createChatReadRoute`) — what `createRunlightChatTransport({ start, chats })` calls.
 *
 * @example
 * // app/api/chat/route.ts (Next.js)
 * export const { POST, GET } = createChatRoutes({ runtime, store, run: () => ({ model, tools }) });
 */
export function createChatRoutes(
  options: ChatStartRouteOptions & { store: Pick<AgentRuntimeStore, 'runInputs' | 'getSnapshot'> },
): { POST: (request: Request) => Promise<Response>; GET: (request: Request) => Promise<Response> } {
  return {
    POST: createChatStartRoute(options),
    GET: createChatReadRoute({
      store: options.store,
      ...(options.onError ? { onError: options.onError } : {}),
    }),
  };
}
