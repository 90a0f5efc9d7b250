import { RunIdSchema, UIMessageSchema } from '@runlight/protocol';
import type { UIMessage } from 'ai';
import { z } from 'zod';
import { RunlightTransportError } from './errors/runlight-transport-error';

/** What the chat read route answers (`GET {chats}?chatId=`), as the transport reads it. */
export interface LoadedChat {
  /** The chat's latest run, or `null` for a chat with none. */
  runId: string | null;
  /** The whole conversation: user and assistant messages, as `useChat({ messages })` takes it. */
  messages: UIMessage[];
}

const LoadedChatSchema = z.looseObject({
  runId: z.nullable(RunIdSchema),
  messages: z.array(UIMessageSchema),
});

/**
 * `GET {url}?chatId=` → the chat's latest run and messages (validated). Throws
 * `RunlightTransportError` (`network`, `start` for a bad answer).
 */
export async function getChat(
  fetch: typeof globalThis.fetch,
  url: string,
  chatId: string,
  init: { headers?: HeadersInit; credentials?: RequestCredentials; signal?: AbortSignal },
): Promise<LoadedChat> {
  const target = `${url}${url.includes('?') ? '&' : '?'}chatId=${encodeURIComponent(chatId)}`;
  let response: Response;
  try {
    response = await fetch(target, { method: 'GET', ...init });
  } catch (cause) {
    if (init.signal?.aborted) throw cause;
    throw new RunlightTransportError('network', `GET ${url} failed`, { cause });
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => {});
    throw new RunlightTransportError('start', `The chat route answered HTTP ${response.status}`, {
      status: response.status,
    });
  }
  const parsed = LoadedChatSchema.safeParse(await response.json().catch(() => null));
  if (!parsed.success) {
    throw new RunlightTransportError('start', 'The chat route answered no valid conversation');
  }
  return { runId: parsed.data.runId, messages: parsed.data.messages };
}
