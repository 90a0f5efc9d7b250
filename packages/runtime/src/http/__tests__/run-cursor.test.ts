import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BadCursorError } from '../streams/bad-cursor-error';
import { formatRunCursor, parseRunCursor, type RunCursor } from '../streams/run-cursor';

describe('run cursor', () => {
  it.each<[string, RunCursor]>([
    ['0', { revision: 0, delta: null }],
    ['12', { revision: 12, delta: null }],
    ['12:10:4', { revision: 12, delta: { baseRevision: 10, seq: 4 } }],
    ['12:12:1', { revision: 12, delta: { baseRevision: 12, seq: 1 } }],
    ['3:0:7', { revision: 3, delta: { baseRevision: 0, seq: 7 } }],
  ])('parses %s', (text, cursor) => {
    expect(parseRunCursor(text)).toEqual(cursor);
    expect(formatRunCursor(cursor)).toBe(text);
  });

  it.each([
    '',
    ' 1',
    '1 ',
    '+1',
    '-1',
    '1e3',
    '0x10',
    '01',
    '1:01:1',
    '1:1:01',
    '1:1',
    '1:1:0',
    '1:2:1',
    '1::1',
    '1:1:1:',
    '9007199254740993',
    '1'.repeat(65),
  ])('rejects %j with a typed error', (text) => {
    let thrown: unknown;
    try {
      parseRunCursor(text);
    } catch (error) {
      thrown = error;
    }
    expect(BadCursorError.isInstance(thrown)).toBe(true);
    expect((thrown as BadCursorError).cursor).toBe(text.slice(0, 80));
  });

  it('round-trips every cursor a server can send (fast-check)', () => {
    const cursor = fc
      .tuple(fc.nat(1e9), fc.option(fc.tuple(fc.nat(1e9), fc.integer({ min: 1, max: 1e9 }))))
      .map(
        ([revision, delta]): RunCursor => ({
          revision,
          delta: delta ? { baseRevision: Math.min(delta[0], revision), seq: delta[1] } : null,
        }),
      );
    fc.assert(
      fc.property(cursor, (c) => {
        expect(parseRunCursor(formatRunCursor(c))).toEqual(c);
      }),
    );
  });
});
