import * as z from 'zod/mini';
import { TimestampSchema } from './timestamp';

/**
 * A planned hand-off of a run, as a durable fact: the owner that handed its lease over on a
 * graceful shutdown (`from`, a `lease-handed-off` event at `at`) and, once known, the owner
 * that received the run (`to`, the acquisition that followed). A run carries the latest one
 * until its next acquisition after the receiving one, so a page that reloads reads the same:
 * a hand-off is a planned event, never a stall or a crash's takeover.
 *
 * In the HTTP handlers' public form `from` and `to` are holder tags, like `owner`.
 */
export const RunHandOffSchema = z.strictObject({
  from: z.string().check(z.minLength(1, 'must name the owner that handed over')),
  at: TimestampSchema,
  to: z.optional(z.string().check(z.minLength(1, 'must name the owner that received the run'))),
});

export type RunHandOff = z.infer<typeof RunHandOffSchema>;
