import { describe, expect, it } from 'vitest';
import { countdownSeconds } from '../countdown-seconds';

const T = Date.parse('2026-12-02T10:00:00.000Z');

describe('countdownSeconds: the one retry countdown', () => {
  it.each<[string, string | null | undefined, number | null, number, number | null]>([
    ['no timestamp', undefined, null, T, null],
    ['a null timestamp', null, null, T, null],
    ['a timestamp that does not parse', 'soon', null, T, null],
    ['3 s ahead', '2026-12-02T10:00:03.000Z', null, T, 3],
    [
      '2.1 s ahead rounds up (the count never shows 0 early)',
      '2026-12-02T10:00:03.000Z',
      null,
      T + 900,
      3,
    ],
    ['exactly due', '2026-12-02T10:00:03.000Z', null, T + 3000, 0],
    ['past: never below 0', '2026-12-02T10:00:03.000Z', null, T + 60_000, 0],
    ['the server clock 2 s ahead of ours', '2026-12-02T10:00:03.000Z', 2000, T, 1],
    ['the server clock 2 s behind ours', '2026-12-02T10:00:03.000Z', -2000, T, 5],
  ])('%s', (_name, until, offset, now, expected) => {
    expect(countdownSeconds(until, offset, now)).toBe(expected);
  });
});
