import { describe, expect, it } from 'vitest';
import { elapsedResolutionMs, formatElapsed } from '../words/format-elapsed';

describe('formatElapsed', () => {
  it.each([
    [0, '0.0 s'],
    [99, '0.0 s'],
    [800, '0.8 s'],
    [9_999, '9.9 s'],
    [10_000, '10 s'],
    [12_400, '12 s'],
    [59_999, '59 s'],
    [60_000, '1 min 00 s'],
    [65_000, '1 min 05 s'],
    [3_599_999, '59 min 59 s'],
    [3_600_000, '1 h 00 min'],
    [3_720_000, '1 h 02 min'],
    [-5, '0.0 s'],
    [Number.NaN, '0.0 s'],
  ])('%d ms → %s (rounded down, never negative)', (ms, text) => {
    expect(formatElapsed(ms)).toBe(text);
  });

  it('changes its text only at its resolution steps, so ticking renders can be skipped between', () => {
    for (const ms of [0, 4_200, 9_900, 10_000, 42_000, 3_600_000, 7_260_000]) {
      const step = elapsedResolutionMs(ms);
      const start = Math.floor(ms / step) * step;
      expect(formatElapsed(start + step - 1)).toBe(formatElapsed(start));
    }
  });
});
