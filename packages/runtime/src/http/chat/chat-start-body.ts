import { z } from 'zod';
import { ChatIdSchema } from '../../store/chat-id-guard';

/** Most messages one chat start may carry (the conversation before the run). */
export const DEFAULT_MAX_CHAT_MESSAGES = 500;

/** An id `useChat` names a message with (generated, or the app's own): only hashed. */
const MessageIdSchema = z.string().min(1).max(200);

/**
 * The JSON a chat start route takes: what `createRunlightChatTransport` POSTs for a `useChat`
 * `sendMessage` / `regenerate` — `{ chatId, trigger, messageId, requestId?, messages, ...body }`.
 * The messages' own structure is checked afterwards by the AI SDK (`safeValidateUIMessages`);
 * here only the envelope and its bounds. Other keys (`useChat`'s per-request `body`) pass.
 */
export function chatStartBodySchema(maxMessages: number = DEFAULT_MAX_CHAT_MESSAGES) {
  return z.looseObject({
    chatId: ChatIdSchema,
    trigger: z.enum(['submit-message', 'regenerate-message']),
    messageId: MessageIdSchema.nullish(),
    /** One per `sendMessages` call: a retried POST repeats it, a new send does not. */
    requestId: z.string().min(1).max(200).optional(),
    messages: z.array(z.unknown()).min(1).max(maxMessages),
  });
}

export type ChatStartBody = z.infer<ReturnType<typeof chatStartBodySchema>>;
