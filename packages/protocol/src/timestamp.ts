import { z } from 'zod';

/**
 * A wall-clock observation in ISO 8601 with an explicit offset (`Z` or `+hh:mm`).
 *
 * Timestamps are checked for their form only, never ordered against each other:
 * NTP or an operator may move the wall clock backwards (ADR 0174).
 */
export const TimestampSchema = z.iso.datetime({
  offset: true,
  error: 'must be an ISO 8601 timestamp with an offset, e.g. 2026-12-02T13:45:00.000Z',
});

export type Timestamp = z.infer<typeof TimestampSchema>;
