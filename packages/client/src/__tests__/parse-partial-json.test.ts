import { describe, expect, it } from 'vitest';
import { parsePartialJson } from '../merge/parse-partial-json';

describe('parsePartialJson', () => {
  const cases: Array<[string, unknown]> = [
    ['', undefined],
    ['{', {}],
    ['{"a"', {}],
    ['{"a":', {}],
    ['{"a":1', { a: 1 }],
    ['{"a":1,', { a: 1 }],
    ['{"a":1,"b":"x', { a: 1, b: 'x' }],
    ['{"a":[1,2', { a: [1, 2] }],
    ['{"a":{"b":tr', { a: {} }],
    ['{"a":{"b":true}', { a: { b: true } }],
    ['{"a":"x\\', { a: 'x' }],
    ['{"a":"\\u00', { a: '' }],
    ['{"a":1.', {}],
    ['[1, "tw', [1, 'tw']],
    ['{"a":1}', { a: 1 }],
  ];
  for (const [text, expected] of cases) {
    it(`${JSON.stringify(text)} → ${JSON.stringify(expected)}`, () => {
      expect(parsePartialJson(text)).toEqual(expected);
    });
  }

  it('parses every prefix of a real tool input without throwing', () => {
    const full = JSON.stringify({
      cmd: 'ls -la "dir"',
      flags: [1, 2.5, true, null],
      nested: { deep: 'é\n' },
    });
    for (let length = 0; length <= full.length; length++) parsePartialJson(full.slice(0, length));
    expect(parsePartialJson(full)).toEqual(JSON.parse(full));
  });
});
