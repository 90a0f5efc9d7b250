import { RunIdSchema } from '@runlight/protocol';
import { InvalidChatIdError } from '../errors/invalid-chat-id-error';

/**
 * A chat id: the rules of a run id (`RunIdSchema`). `useChat` generates ids of letters and
 * digits, and an app's own (a UUID, `chat-42`) fits too; NUL, spaces, slashes and control
 * characters never reach a driver.
 */
export const ChatIdSchema = RunIdSchema;

/** Throws `InvalidChatIdError` unless `chatId` passes `ChatIdSchema`. */
export function assertChatId(chatId: unknown): asserts chatId is string {
  const parsed = ChatIdSchema.safeParse(chatId);
  if (parsed.success) return;
  const shown = typeof chatId === 'string' ? chatId.slice(0, 80) : String(chatId);
  throw new InvalidChatIdError(shown, parsed.error.issues[0]?.message ?? 'is invalid');
}
