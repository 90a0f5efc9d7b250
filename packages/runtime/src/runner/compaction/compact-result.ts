import type { ModelMessage } from 'ai';
import { z } from 'zod';
import { CallbackResultError } from '../../errors/callback-result-error';
import type { CompactResult } from '../run-options';

/**
 * The shape a `compact` callback must return. A `compacted` result replaces the step's
 * messages, so it must hold at least one message with a role; anything else is refused rather
 * than recorded as `not_needed`, which would claim no summary was needed.
 */
const CompactResultSchema = z.discriminatedUnion('status', [
  z.object({
    status: z.literal('compacted'),
    messages: z
      .array(
        z.looseObject({ role: z.enum(['system', 'user', 'assistant', 'tool']) }),
        'must be an array of model messages',
      )
      .min(1, 'must hold at least one message'),
  }),
  z.object({ status: z.literal('not_needed') }),
]);

/**
 * Validates what a `compact` callback returned (a trust boundary: application code).
 *
 * @example
 * parseCompactResult({ status: 'not_needed' }); // { status: 'not_needed' }
 * parseCompactResult({ status: 'compacted' });  // throws CallbackResultError (messages)
 */
export function parseCompactResult(value: unknown): CompactResult {
  const parsed = CompactResultSchema.safeParse(value);
  if (parsed.success) {
    return parsed.data.status === 'compacted'
      ? { status: 'compacted', messages: parsed.data.messages as unknown as ModelMessage[] }
      : { status: 'not_needed' };
  }
  throw new CallbackResultError(
    'compact',
    parsed.error.issues.map((issue) => ({
      path: issue.path.join('.') || '(result)',
      message: issue.message,
    })),
  );
}
