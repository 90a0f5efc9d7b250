import type { StartRunOptions } from '@runlight/runtime';
import { scriptedModel } from '@runlight/runtime/testing';
import { isStepCount, type ModelMessage, tool } from 'ai';
import { z } from 'zod';
import type { DemoSettings } from '../src/scenario-catalog';
import { abortableSleep } from './abortable-sleep';

const sleep = abortableSleep;

const lookup = tool({
  description: 'Looks a city up',
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => {
    await sleep(600);
    return { city, found: true };
  },
});

/**
 * "Where did the time go": three steps with tools, compaction before each step, and a first
 * model request that fails with a retryable error (a 503 after 400 ms) before the AI SDK's
 * retry answers — every kind of operation the waterfall draws, for the history tests.
 *
 * @example
 * runtime.startRun(historyRunOptions(runId, settings));
 */
export function historyRunOptions(
  runId: string,
  { tokenMs }: DemoSettings,
  /** Where a test may hold the last step's compaction (`undefined`: not held, go on). */
  holdLastCompaction?: (signal?: AbortSignal) => Promise<void> | undefined,
): StartRunOptions {
  const user: ModelMessage[] = [{ role: 'user', content: 'Plan a trip to Oslo and Lisbon.' }];
  return {
    runId,
    model: scriptedModel([
      {
        firstTokenMs: 400,
        error: { at: 'request', retryAfterMs: 300, message: '503 upstream busy' },
      },
      {
        firstTokenMs: 700,
        tokenMs,
        text: 'Looking up Oslo first.',
        toolCalls: [{ toolName: 'lookup', input: { city: 'Oslo' } }],
      },
      {
        firstTokenMs: 500,
        tokenMs,
        text: 'Now Lisbon.',
        toolCalls: [{ toolName: 'lookup', input: { city: 'Lisbon' } }],
      },
      { firstTokenMs: 600, tokenMs, text: 'Both cities are found: start in Oslo, end in Lisbon.' },
    ]),
    messages: user,
    tools: { lookup },
    stopWhen: isStepCount(5),
    compact: async ({ step, signal }) => {
      await ((step === 2 ? holdLastCompaction?.(signal) : undefined) ?? sleep(500, signal));
      return step < 2 ? { status: 'not_needed' } : { status: 'compacted', messages: user };
    },
  };
}
