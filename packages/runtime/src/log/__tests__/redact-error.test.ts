import { describe, expect, it } from 'vitest';
import { StoreConflictError } from '../../errors/store-conflict-error';
import { redactError, redactingLog } from '../redact-error';

const SECRET = 'PROMPT-SECRET';

describe('redactError: whatever the error type, no text but Runlight’s own', () => {
  it.each([
    ['a plain Error', new Error(`failed on ${SECRET}`), { kind: 'Error' }],
    ['a TypeError', new TypeError(SECRET), { kind: 'TypeError' }],
    [
      'a look-alike of APICallError',
      Object.assign(new Error(SECRET), {
        name: 'AI_APICallError',
        statusCode: 400,
        isRetryable: false,
        requestBodyValues: { messages: [SECRET] },
        responseBody: SECRET,
        responseHeaders: { 'x-echo': SECRET },
        url: `https://api.test/?q=${SECRET}`,
      }),
      { kind: 'AI_APICallError', status: 400, retryable: false },
    ],
    [
      'a wrapper whose cause holds the prompt',
      new Error('wrapped', { cause: Object.assign(new Error(SECRET), { code: 'ECONNRESET' }) }),
      { kind: 'Error', cause: { kind: 'Error', code: 'ECONNRESET' } },
    ],
    [
      'a name that is itself text',
      Object.assign(new Error('x'), { name: `${SECRET} happened` }),
      { kind: 'Error' },
    ],
    [
      'a code that is text',
      Object.assign(new Error('x'), { code: `${SECRET} code` }),
      { kind: 'Error' },
    ],
    ['a thrown string', SECRET, { kind: 'string' }],
    ['a thrown object', { prompt: SECRET }, { kind: 'Error' }],
  ])('%s', (_, error, expected) => {
    const redacted = redactError(error);
    expect(redacted).toEqual(expected);
    expect(JSON.stringify(redacted)).not.toContain(SECRET);
  });

  it('keeps a Runlight error’s kind and message (ids and rules only)', () => {
    const error = new StoreConflictError('run-1', 3, 4);
    expect(redactError(error)).toEqual({ kind: error.kind, message: error.message });
  });

  it('ends on a cause cycle', () => {
    const a = new Error(SECRET) as Error & { cause?: unknown };
    a.cause = a;
    expect(JSON.stringify(redactError(a))).not.toContain(SECRET);
  });

  it('redactingLog passes entries without errors unchanged, and raw errors only when asked', () => {
    const seen: unknown[] = [];
    const entry = { level: 'warn', error: new Error(SECRET) };
    redactingLog((logged: object) => seen.push(logged), undefined)(entry);
    redactingLog((logged: object) => seen.push(logged), true)(entry);
    const plain = { level: 'info' };
    redactingLog((logged: object) => seen.push(logged), undefined)(plain);
    expect(seen[0]).toEqual({ level: 'warn', error: { kind: 'Error' } });
    expect(seen[1]).toBe(entry);
    expect(seen[2]).toBe(plain);
  });
});
