import { RunIdSchema } from '@runlight/protocol';
import { InvalidRunIdError } from '../errors/invalid-run-id-error';

/**
 * Throws `InvalidRunIdError` unless `runId` passes the protocol's `RunIdSchema`. A leaf of its
 * own: the store's control requests and run inputs check ids with it, and the store facade's
 * types (which name those) stay out of their imports — no type-only file cycle.
 *
 * @example
 * assertRunId('run-1'); // passes; assertRunId('a b') throws InvalidRunIdError
 */
export function assertRunId(runId: unknown): asserts runId is string {
  const parsed = RunIdSchema.safeParse(runId);
  if (parsed.success) return;
  const shown = typeof runId === 'string' ? runId.slice(0, 80) : String(runId);
  throw new InvalidRunIdError(shown, parsed.error.issues[0]?.message ?? 'is invalid');
}
