import * as z from 'zod/mini';
import { UIMessageSchema } from './ui-message';

/**
 * The assistant message of this run persisted so far — an AI SDK `UIMessage` — with the
 * revision it was written at. Tool calls, tool results, approvals and step boundaries live in
 * its parts. It holds this run's assistant message only, never the whole conversation.
 */
export const AssistantCheckpointSchema = z.strictObject({
  message: UIMessageSchema,
  revision: z.number().check(z.int('must be an integer'), z.minimum(1, 'must be 1 or more')),
});

export type AssistantCheckpoint = z.infer<typeof AssistantCheckpointSchema>;
