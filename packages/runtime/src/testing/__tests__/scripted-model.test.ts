import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { isStepCount, streamText, tool } from 'ai';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { scriptedModel } from '../scripted-model';

const call = (model: ReturnType<typeof scriptedModel>, abortSignal?: AbortSignal) =>
  model.doStream({ prompt: [], abortSignal });

/** Reads parts as they become available, recording the fake time of each. */
async function readTimed(stream: ReadableStream<LanguageModelV4StreamPart>, step = 10) {
  const reader = stream.getReader();
  const seen: [number, string][] = [];
  let pending = reader.read();
  for (;;) {
    const result = await Promise.race([
      pending,
      vi.advanceTimersByTimeAsync(step).then(() => null),
    ]);
    if (result === null) continue;
    if (result.done) return seen;
    const part = result.value;
    seen.push([Date.now(), part.type === 'text-delta' ? `text:${part.delta}` : part.type]);
    pending = reader.read();
  }
}

describe('scriptedModel', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('waits firstTokenMs before the first content and tokenMs before each further chunk', async () => {
    vi.useFakeTimers({ now: 0 });
    const model = scriptedModel([{ firstTokenMs: 1000, tokenMs: 100, text: 'a b c' }]);
    const { stream } = await call(model);
    const seen = await readTimed(stream);
    expect(seen).toEqual([
      [0, 'stream-start'],
      [1000, 'text-start'],
      [1000, 'text:a '],
      [1100, 'text:b '],
      [1200, 'text:c'],
      [1200, 'text-end'],
      [1200, 'finish'],
    ]);
  });

  it('honours the abort signal during the first-token wait', async () => {
    vi.useFakeTimers({ now: 0 });
    const model = scriptedModel([{ firstTokenMs: 60_000, text: 'never' }]);
    const controller = new AbortController();
    const { stream } = await call(model, controller.signal);
    const reader = stream.getReader();
    expect((await reader.read()).value?.type).toBe('stream-start');
    const next = reader.read();
    await vi.advanceTimersByTimeAsync(500);
    controller.abort(new Error('user cancelled'));
    await expect(next).rejects.toThrow('user cancelled');
  });

  it('fails the request before any output, or mid-stream after N content chunks', async () => {
    const model = scriptedModel([
      { error: { at: 'request', message: 'overloaded' } },
      { text: 'one two three', error: { at: 2, message: 'connection reset' } },
    ]);
    await expect(call(model)).rejects.toThrow('overloaded');
    const { stream } = await call(model);
    const parts: LanguageModelV4StreamPart[] = [];
    for (const reader = stream.getReader(); ; ) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
    }
    expect(parts.map((part) => part.type)).toEqual([
      'stream-start',
      'text-start',
      'text-delta',
      'text-delta',
      'error',
    ]);
    await expect(call(model)).rejects.toThrow(/no step 2/);
  });

  it('plays reasoning, text and tool calls step by step through streamText', async () => {
    const model = scriptedModel([
      {
        reasoning: 'Need the weather.',
        text: 'Checking.',
        toolCalls: [{ toolName: 'weather', input: { city: 'Oslo' } }],
      },
      { text: 'Sunny in Oslo.' },
    ]);
    const weather = tool({
      inputSchema: z.object({ city: z.string() }),
      execute: async ({ city }) => `sunny in ${city}`,
    });
    const result = streamText({
      model,
      prompt: 'Weather?',
      tools: { weather },
      stopWhen: isStepCount(3),
    });
    const steps = await result.steps;
    expect(steps.map((step) => [step.reasoningText, step.text, step.finishReason])).toEqual([
      ['Need the weather.', 'Checking.', 'tool-calls'],
      [undefined, 'Sunny in Oslo.', 'stop'],
    ]);
    expect(steps[0]?.toolResults.map((toolResult) => toolResult.output)).toEqual(['sunny in Oslo']);
    expect(model.doStreamCalls).toHaveLength(2);
  });
});
