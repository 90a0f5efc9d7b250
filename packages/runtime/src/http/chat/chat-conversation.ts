import { isTerminalStatus, type RunStatus, type UIMessage } from '@runlight/protocol';
import type { AgentRuntimeStore } from '../../store/agent-runtime-store';
import { ChatIdSchema } from '../../store/chat-id-guard';
import type { ChatRun } from '../../store/run-inputs';
import {
  createAccessGate,
  type RunAccessPolicy,
  requireAccessPolicy,
} from '../access/access-policy';
import { INTERNAL_ERROR_MESSAGE, jsonError } from '../json-error';
import { chatRunsOf } from './chat-runs';

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
  /** The chat's runs, newest first (at most 20; on the route, those the policy lets it read). */
  runs: ChatRun[];
}

type ConversationStore = Pick<AgentRuntimeStore, 'runInputs' | 'getSnapshot'>;

/**
 * The chat's conversation as stored: its runs (`store.runInputs.listChatRuns`), the latest
 * run's input messages and, once it ended, its checkpointed assistant message. Reads the store
 * directly and asks nobody (in process: a server component or loader can call it without HTTP
 * — check that the caller owns the chat yourself there, as `createChatReadRoute` does).
 *
 * @example
 * const { messages, runId } = await loadChatConversation(store, chatId);
 */
export async function loadChatConversation(
  store: ConversationStore,
  chatId: string,
): Promise<ChatConversation> {
  const runs = await chatRunsOf(store).listChatRuns(chatId, { limit: 20 });
  return conversationOf(store, chatId, runs);
}

async function conversationOf(
  store: ConversationStore,
  chatId: string,
  runs: ChatRun[],
): Promise<ChatConversation> {
  const latest = runs[0];
  if (!latest) return emptyConversation(chatId);
  const [input, snapshot] = await Promise.all([
    chatRunsOf(store).get(latest.runId),
    store.getSnapshot(latest.runId),
  ]);
  const messages = [...(input?.messages ?? [])];
  const assistant = snapshot.assistant?.message;
  if (assistant && isTerminalStatus(snapshot.run.status)) {
    messages.push({ ...assistant, metadata: { runId: latest.runId } });
  }
  return { chatId, runId: latest.runId, status: snapshot.run.status, messages, runs };
}

const emptyConversation = (chatId: string): ChatConversation => ({
  chatId,
  runId: null,
  status: null,
  messages: [],
  runs: [],
});

const answer = (conversation: ChatConversation) =>
  Response.json(conversation, { headers: { 'Cache-Control': 'no-store' } });

/**
 * `GET …?chatId=<id>` → `200` `ChatConversation`; `400 bad_body` without a valid `chatId` (the
 * rules of a run id). `authorize` (required, or `'public'`) is asked about **the chat itself**
 * before anything of it is read — `read` with the `chatId`, its runs (`chatRuns`, newest
 * first) and its latest run as `runId` (`''` for a chat without runs) — and then `read` of each
 * other run it lists. A chat the policy refuses (`false`) answers exactly like a chat nobody
 * started (`runId: null`, no messages, no runs): no answer tells a stranger that a chat id
 * exists. A `Response` from the policy (a `401`) is sent as is, for known and unknown chats
 * alike. `runs` holds only the runs the policy lets the caller read.
 *
 * @example
 * export const GET = createChatReadRoute({ store, authorize });
 */
export function createChatReadRoute(options: {
  store: ConversationStore;
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
  const inputs = chatRunsOf(options.store);
  return async (request) => {
    const chatId = ChatIdSchema.safeParse(new URL(request.url).searchParams.get('chatId'));
    if (!chatId.success) return jsonError(400, 'bad_body', 'chatId: a valid chat id is required');
    try {
      const runs = await inputs.listChatRuns(chatId.data, { limit: 20 });
      const chatRuns = runs.map((run) => run.runId);
      const unknown = () => answer(emptyConversation(chatId.data));
      const question = { request, action: 'read', chatId: chatId.data } as const;
      const refused = await gate.ask(
        { ...question, runId: chatRuns[0] ?? '', chatRuns },
        undefined,
        unknown,
      );
      if (refused) return refused;
      if (runs.length === 0) return unknown();
      // The latest run was allowed with the chat; each older one is asked on its own.
      const allowed = await Promise.all(
        runs.slice(1).map(async (run) => {
          const verdict = await gate.ask({ ...question, runId: run.runId }, undefined);
          await verdict?.body?.cancel().catch(() => {});
          return verdict === null;
        }),
      );
      const visible = runs.filter((_, index) => index === 0 || allowed[index - 1]);
      return answer(await conversationOf(options.store, chatId.data, visible));
    } catch (error) {
      onError(error);
      return jsonError(500, 'internal', INTERNAL_ERROR_MESSAGE);
    }
  };
}
