import type { Message } from '@ag-ui/core';
import type { UIMessage } from '@runlight/protocol';

/** The data part an AG-UI message is kept in, inside the run's stored conversation. */
export const AG_UI_MESSAGE_PART = 'data-ag-ui-message';

/**
 * The AG-UI conversation a run starts with, as the store keeps run inputs (`UIMessage`s): each
 * message whole, in one `data-ag-ui-message` part, so a reconnecting client gets back exactly
 * what was sent — ids, tool calls and results included. The `UIMessage` role is the nearest
 * one (`user`, `system` for system and developer messages, `assistant` otherwise).
 *
 * @example
 * runtime.startRun({ …, conversation: { chatId: input.threadId, messages: toStoredConversation(input.messages) } });
 */
export function toStoredConversation(messages: readonly Message[]): UIMessage[] {
  return messages.map((message) => ({
    id: message.id,
    role:
      message.role === 'user'
        ? 'user'
        : message.role === 'system' || message.role === 'developer'
          ? 'system'
          : 'assistant',
    parts: [{ type: AG_UI_MESSAGE_PART, data: message }],
  })) as UIMessage[];
}

/** The AG-UI messages of a stored conversation (what `toStoredConversation` kept). */
export function fromStoredConversation(messages: readonly UIMessage[]): Message[] {
  return messages.flatMap((message) =>
    message.parts.flatMap((part) =>
      part.type === AG_UI_MESSAGE_PART ? [(part as { data: Message }).data] : [],
    ),
  );
}
