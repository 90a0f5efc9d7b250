import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { TimestampSchema } from '../timestamp';

const zodIso = z.iso.datetime({ offset: true });

/** Strings near the ISO form: real instants with every offset form, and mangled ones. */
const candidates = fc.oneof(
  fc
    .tuple(
      fc.date({ min: new Date('0001-01-01'), max: new Date('9999-12-31'), noInvalidDate: true }),
      fc.constantFrom('Z', '+00:00', '-05:30', '+14:00', '+24:00', '-0530', 'z', ''),
      fc.constantFrom('', '.1', '.123', '.123456789', '.'),
    )
    .map(([date, offset, fraction]) => `${date.toISOString().slice(0, 19)}${fraction}${offset}`),
  fc
    .tuple(
      fc.integer({ min: 0, max: 9999 }),
      fc.integer({ min: 0, max: 13 }),
      fc.integer({ min: 0, max: 32 }),
    )
    .map(
      ([year, month, day]) =>
        `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}T12:00:00Z`,
    ),
  fc.string(),
);

describe('TimestampSchema', () => {
  it('accepts exactly what zod’s z.iso.datetime({ offset: true }) accepts', () => {
    fc.assert(
      fc.property(candidates, (value) => {
        expect(TimestampSchema.safeParse(value).success).toBe(zodIso.safeParse(value).success);
      }),
      { numRuns: 2000, seed: 24 },
    );
  });

  it('names the rule it breaks', () => {
    const result = TimestampSchema.safeParse('2026-12-02 13:45');
    expect(result.error?.issues[0]?.message).toBe(
      'must be an ISO 8601 timestamp with an offset, e.g. 2026-12-02T13:45:00.000Z',
    );
    expect(TimestampSchema.safeParse('2024-02-29T00:00:00.000+01:00').success).toBe(true);
    expect(TimestampSchema.safeParse('2023-02-29T00:00:00.000Z').success).toBe(false);
  });
});
