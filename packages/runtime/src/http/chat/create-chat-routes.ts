import type { AgentRuntimeStore } from '../../store/agent-runtime-store';
import { createChatReadRoute } from './chat-conversation';
import { type ChatStartRouteOptions, createChatStartRoute } from './create-chat-start-route';

/**
 * A chat's two routes on one path: `POST` starts the run for `useChat`'s request
 * (`createChatStartRoute`), `GET ?chatId=` gives the whole conversation back
 * (`createChatReadRoute`) — what `createRunlightChatTransport({ start, chats })` calls. Both ask
 * `authorize` (required; `'public'` on purpose; `AccessPolicyError` without it) about the chat
 * itself — its id and its runs (`chatId`, `chatRuns`) — before it is read, appended to or
 * listed: `start` for a POST, `read` for a GET. Pass the run router's policy: one policy for
 * every route.
 *
 * @example
 * // app/api/chat/route.ts (Next.js)
 * export const { POST, GET } = createChatRoutes({
 *   runtime,
 *   store,
 *   authorize, // the same policy as createRunRouter({ authorize })
 *   run: () => ({ model, tools }),
 * });
 */
export function createChatRoutes(
  options: ChatStartRouteOptions & { store: Pick<AgentRuntimeStore, 'runInputs' | 'getSnapshot'> },
): { POST: (request: Request) => Promise<Response>; GET: (request: Request) => Promise<Response> } {
  return {
    POST: createChatStartRoute(options),
    GET: createChatReadRoute({
      store: options.store,
      authorize: options.authorize,
      ...(options.onError ? { onError: options.onError } : {}),
    }),
  };
}
