import { isTerminalStatus, type RunStatus, type UIMessage } from '@runlight/protocol';
import { z } from 'zod';
import type { AgentRuntimeStore } from '../../store/agent-runtime-store';
import type { ChatRun } from '../../store/run-inputs';
import {
  createAccessGate,
  type RunAccessPolicy,
  requireAccessPolicy,
} from '../access/access-policy';
import { INTERNAL_ERROR_MESSAGE, jsonError } from '../json-error';

/** What `GET …?chatId=` answers: the chat's latest run and the whole conversation. */
export interface ChatConversation {
  chatId: string;
  /** The chat's latest run, or `null` for a chat with none (a new chat). */
  runId: string | null;
  status: RunStatus | null;
  /**
   * The conversation: the latest run's input messages, plus its assistant message once the run
   * ended (`metadata: { runId }`). While it runs, the transport's `reconnectToStream` replays
   * the assistant message, so it is not repeated here.
   */
  messages: UIMessage[];
  /** The chat's runs, newest first (at most 20). */
  runs: ChatRun[];
}

/**
 * The chat's conversation as stored: its runs (`store.runInputs.listChatRuns`), the latest
 * run's input messages and, once it ended, its checkpointed assistant message. Reads the store
 * directly (in process: a server component or loader can call it without HTTP; check access
 * yourself there). `refuse`, when given, is asked with the latest run's id before anything of
 * it is read: a `Response` it answers is returned instead of the conversation.
 *
 * @example
 * const { messages, runId } = await loadChatConversation(store, chatId);
 */
export async function loadChatConversation(
  store: Pick<AgentRuntimeStore, 'runInputs' | 'getSnapshot'>,
  chatId: string,
): Promise<ChatConversation>;
export async function loadChatConversation(
  store: Pick<AgentRuntimeStore, 'runInputs' | 'getSnapshot'>,
  chatId: string,
  refuse: (runId: string) => Promise<Response | null>,
): Promise<ChatConversation | Response>;
export async function loadChatConversation(
  store: Pick<AgentRuntimeStore, 'runInputs' | 'getSnapshot'>,
  chatId: string,
  refuse?: (runId: string) => Promise<Response | null>,
): Promise<ChatConversation | Response> {
  const inputs = store.runInputs;
  if (!inputs) throw new TypeError('The store keeps no run inputs (conversations)');
  const runs = await inputs.listChatRuns(chatId, { limit: 20 });
  const latest = runs[0];
  if (!latest) return { chatId, runId: null, status: null, messages: [], runs };
  const refused = refuse ? await refuse(latest.runId) : null;
  if (refused) return refused;
  const [input, snapshot] = await Promise.all([
    inputs.get(latest.runId),
    store.getSnapshot(latest.runId),
  ]);
  const messages = [...(input?.messages ?? [])];
  const assistant = snapshot.assistant?.message;
  if (assistant && isTerminalStatus(snapshot.run.status)) {
    messages.push({ ...assistant, metadata: { runId: latest.runId } });
  }
  return { chatId, runId: latest.runId, status: snapshot.run.status, messages, runs };
}

const ChatIdQuery = z.string().min(1).max(200);

/**
 * `GET …?chatId=<id>` → `200` `ChatConversation` (a chat with no runs: `runId: null`, no
 * messages), `400 bad_body` without a valid `chatId`. `authorize` (required, or `'public'`) is
 * asked `read` of the chat's latest run, with the `chatId`, before its messages are read; a
 * chat with no runs has nothing to read and answers the empty conversation.
 *
 * @example
 * export const GET = createChatReadRoute({ store, authorize });
 */
export function createChatReadRoute(options: {
  store: Pick<AgentRuntimeStore, 'runInputs' | 'getSnapshot'>;
  authorize: RunAccessPolicy;
  onError?: (error: unknown) => void;
}): (request: Request) => Promise<Response> {
  const onError = options.onError ?? (() => {});
  const gate = createAccessGate({
    own: requireAccessPolicy(options.authorize, 'createChatReadRoute'),
    reauthorizeMs: undefined,
    onError,
    where: 'createChatReadRoute',
  });
  return async (request) => {
    const chatId = ChatIdQuery.safeParse(new URL(request.url).searchParams.get('chatId'));
    if (!chatId.success) return jsonError(400, 'bad_body', 'chatId: a chat id is required');
    try {
      const conversation = await loadChatConversation(options.store, chatId.data, (runId) =>
        gate.ask({ request, runId, action: 'read', chatId: chatId.data }, undefined),
      );
      if (conversation instanceof Response) return conversation;
      return Response.json(conversation, { headers: { 'Cache-Control': 'no-store' } });
    } catch (error) {
      onError(error);
      return jsonError(500, 'internal', INTERNAL_ERROR_MESSAGE);
    }
  };
}
