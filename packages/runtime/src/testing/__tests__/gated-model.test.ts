import { streamText } from 'ai';
import { describe, expect, it } from 'vitest';
import { gatedModel } from '../gated-model';

describe('gatedModel', () => {
  it('holds the request until open(), then streams the script; later requests go on at once', async () => {
    const { model, open } = gatedModel([{ text: 'first' }, { text: 'second' }]);
    let settled = false;
    const first = streamText({ model, prompt: 'hi' }).text.then((text) => {
      settled = true;
      return text;
    });
    // Many turns of the event loop: still held.
    for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    open();
    expect(await first).toBe('first');
    expect(await streamText({ model, prompt: 'again' }).text).toBe('second');
  });

  it('a request aborted while held ends, as a real provider call does (a held run can be cancelled)', async () => {
    const { model } = gatedModel([{ text: 'never' }]);
    const abort = new AbortController();
    const result = streamText({
      model,
      prompt: 'hi',
      abortSignal: abort.signal,
      onError: () => {},
    });
    abort.abort(new Error('cancelled by the test'));
    await expect(result.text).rejects.toThrow();
  });
});
