import { describe, expect, it } from 'vitest';
import { shownElapsedMs } from '../shown-elapsed-ms';

const since = '2026-12-02T10:00:00.000Z';
const T = Date.parse(since);

describe('shownElapsedMs: the elapsed time a status shows', () => {
  it.each<
    [
      string,
      string | null | undefined,
      { until?: string; clockOffsetMs?: number },
      number | null,
      number | null,
    ]
  >([
    ['no start', undefined, {}, T, null],
    ['a running time on a server render (no clock)', since, {}, null, null],
    [
      'a finished run: fixed, no clock needed',
      since,
      { until: '2026-12-02T10:01:05.250Z' },
      null,
      65_250,
    ],
    ['tenths below 10 s, rounded down', since, {}, T + 4_299, 4_200],
    ['whole seconds below an hour', since, {}, T + 65_999, 65_000],
    ['minutes past an hour', since, {}, T + 3_725_000, 3_720_000],
    ['a client clock ahead of the server: never negative', since, {}, T - 5_000, 0],
    ['the server clock 3 s ahead of ours', since, { clockOffsetMs: 3_000 }, T + 1_000, 4_000],
    ['an until before since: 0', since, { until: '2026-12-02T09:59:00.000Z' }, null, 0],
  ])('%s', (_name, from, options, now, expected) => {
    expect(shownElapsedMs(from, options, now)).toBe(expected);
  });
});
