import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { scriptedModel } from '../../testing/scripted-model';
import { isFirstOutput } from '../admission/first-output';
import { harness, isPhase, nextEvent, user } from './harness';

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};
const file = { type: 'data' as const, data: 'aGk=' };

/** Every provider part type with the ADR verdict: does it end the provider wait? */
const table: [string, LanguageModelV4StreamPart[], boolean][] = [
  ['stream-start', [{ type: 'stream-start', warnings: [] }], false],
  ['response-metadata', [{ type: 'response-metadata', id: 'r-1', modelId: 'm' }], false],
  ['text-start', [{ type: 'text-start', id: 't' }], false],
  [
    'empty text-delta',
    [
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: '' },
    ],
    false,
  ],
  [
    'text-delta',
    [
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'Hi' },
    ],
    true,
  ],
  [
    'text-end',
    [
      { type: 'text-start', id: 't' },
      { type: 'text-end', id: 't' },
    ],
    false,
  ],
  ['reasoning-start', [{ type: 'reasoning-start', id: 'r' }], false],
  [
    'empty reasoning-delta',
    [
      { type: 'reasoning-start', id: 'r' },
      { type: 'reasoning-delta', id: 'r', delta: '' },
    ],
    false,
  ],
  [
    'reasoning-delta',
    [
      { type: 'reasoning-start', id: 'r' },
      { type: 'reasoning-delta', id: 'r', delta: 'hmm' },
    ],
    true,
  ],
  ['tool-input-start', [{ type: 'tool-input-start', id: 'c', toolName: 'noop' }], false],
  [
    'empty tool-input-delta',
    [
      { type: 'tool-input-start', id: 'c', toolName: 'noop' },
      { type: 'tool-input-delta', id: 'c', delta: '' },
    ],
    false,
  ],
  [
    'tool-input-delta',
    [
      { type: 'tool-input-start', id: 'c', toolName: 'noop' },
      { type: 'tool-input-delta', id: 'c', delta: '{' },
    ],
    true,
  ],
  ['tool-call', [{ type: 'tool-call', toolCallId: 'c', toolName: 'noop', input: '{}' }], true],
  ['file', [{ type: 'file', mediaType: 'text/plain', data: file }], false],
  ['reasoning-file', [{ type: 'reasoning-file', mediaType: 'text/plain', data: file }], false],
  ['source', [{ type: 'source', sourceType: 'url', id: 's', url: 'https://example.com' }], false],
  ['custom', [{ type: 'custom', kind: 'vendor.note' }], false],
  ['raw', [{ type: 'raw', rawValue: { any: 1 } }], false],
  ['ping', [{ type: 'ping' } as LanguageModelV4StreamPart], false],
];

describe('isFirstOutput (the rule, per part type)', () => {
  it.each(table)('%s → %s', (_name, parts, expected) => {
    expect(isFirstOutput(parts.at(-1)!)).toBe(expected);
  });

  it('usage (finish) and errors never qualify', () => {
    expect(
      isFirstOutput({ type: 'finish', usage, finishReason: { unified: 'stop', raw: 'stop' } }),
    ).toBe(false);
    expect(isFirstOutput({ type: 'error', error: new Error('x') })).toBe(false);
  });
});

describe('first output as recorded by the runtime, per part type', () => {
  const noop = tool({ inputSchema: z.object({}), execute: async () => ({}) });

  // Rows run concurrently: each waits for the provider, not the CPU.
  it.concurrent.for(table)(
    '%s alone, then a long wait → phase first-output: %s',
    async ([, parts, expected], { expect }) => {
      const h = harness();
      // The parts arrive at once; the text only after a wait far longer than the window.
      const model = scriptedModel([{ preamble: parts, firstTokenMs: 600, text: 'later' }]);
      const started = nextEvent(h.runtime, h.runId, isPhase('started'));
      const firstOutput = nextEvent(h.runtime, h.runId, isPhase('first-output')).then(() => true);
      const handle = h.runtime.startRun({
        runId: h.runId,
        model,
        messages: user('Hi'),
        tools: { noop },
      });
      await started;
      const window = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 200));
      const during = await Promise.race([firstOutput, window]);
      h.runtime.cancelRun(h.runId);
      await handle.done;
      expect(during).toBe(expected);
    },
  );
});
