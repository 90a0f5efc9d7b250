/**
 * The run id a chat start gets: `chat-` and 40 hex digits of SHA-256 over the chat id, the
 * trigger, the message id and the request id. The same POST sent twice (a retry) names the
 * same run, so it never starts a second one; a new send (a new request id) names a new run.
 * Without a request id, a submit is keyed by its message alone (one run per user message).
 *
 * @example
 * await chatRunId({ chatId: 'chat-1', trigger: 'submit-message', messageId: 'm1' });
 * // 'chat-3f…' (always the same for these inputs)
 */
export async function chatRunId(key: {
  chatId: string;
  trigger: string;
  messageId?: string | null | undefined;
  requestId?: string | undefined;
}): Promise<string> {
  const requestId = key.requestId ?? (key.trigger === 'submit-message' ? '' : crypto.randomUUID());
  const text = JSON.stringify([key.chatId, key.trigger, key.messageId ?? '', requestId]);
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  const hex = Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0'));
  return `chat-${hex.join('').slice(0, 40)}`;
}
