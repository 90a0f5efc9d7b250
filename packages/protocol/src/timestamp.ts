import * as z from 'zod/mini';

/**
 * A wall-clock observation in ISO 8601 with an explicit offset (`Z` or `+hh:mm`).
 *
 * Timestamps are checked for their form only, never ordered against each other:
 * NTP or an operator may move the wall clock backwards (ADR 0174).
 */
/**
 * Zod's own `z.iso.datetime({ offset: true })` pattern (the same strings pass; checked by
 * `timestamp.test.ts`), as a plain regex: `zod/mini` then leaves its ISO format machinery out of
 * a browser bundle.
 */
const ISO_DATETIME_WITH_OFFSET =
  /^(?:(?:\d\d[2468][048]|\d\d[13579][26]|\d\d0[48]|[02468][048]00|[13579][26]00)-02-29|\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\d|30)|(?:02)-(?:0[1-9]|1\d|2[0-8])))T(?:(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d+)?(?:Z|([+-](?:[01]\d|2[0-3]):[0-5]\d)))$/;

export const TimestampSchema = z
  .string()
  .check(
    z.regex(
      ISO_DATETIME_WITH_OFFSET,
      'must be an ISO 8601 timestamp with an offset, e.g. 2026-12-02T13:45:00.000Z',
    ),
  );

export type Timestamp = z.infer<typeof TimestampSchema>;
