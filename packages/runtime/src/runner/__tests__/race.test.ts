import { isStepCount, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createMemoryDriver } from '../../store/driver/memory-driver';
import { scriptedModel } from '../../testing/scripted-model';
import { withLatency } from '../../testing/with-latency';
import { harness, user } from './harness';

const lookup = tool({
  inputSchema: z.object({ q: z.string() }),
  execute: async ({ q }) => ({ q, found: true }),
});

/**
 * The ADR race: a store answering on later ticks, checkpoints after every part, and the
 * model-request admission of the next step racing the last checkpoints of the previous one.
 * Every owned mutation takes its turn in the per-run queue, so no run conflicts with itself.
 */
async function seededRun(seed: number) {
  const h = harness({
    runId: `race-${seed}`,
    driver: withLatency(createMemoryDriver(), { minMs: 0, maxMs: 1, seed }),
    checkpointEveryEvents: 1,
  });
  const model = scriptedModel([
    { toolCalls: [{ toolName: 'lookup', input: { q: `s${seed}` }, streamInput: false }] },
    { text: 'Found.' },
  ]);
  const run = await h.runtime.startRun({
    runId: h.runId,
    model,
    messages: user('Find it'),
    tools: { lookup },
    stopWhen: isStepCount(3),
  }).done;
  return { seed, run, calls: model.doStreamCalls.length, logs: h.logs.length };
}

describe('the ADR race over a store answering on later ticks', () => {
  // What decides is the count of failing seeds, whatever the time: the timeout only bounds a
  // hang. The 500 runs took some 15 s on a busy 2-core machine, and take several times that
  // beside CI's other lanes.
  it('ends 500 seeded runs completed: 0 storage_conflict, 0 provider_failure', async () => {
    const results: Awaited<ReturnType<typeof seededRun>>[] = [];
    const seeds = Array.from({ length: 500 }, (_, index) => index + 1);
    // Independent runs proceed in parallel; batches keep the timers bounded.
    for (let start = 0; start < seeds.length; start += 250) {
      results.push(...(await Promise.all(seeds.slice(start, start + 250).map(seededRun))));
    }
    const failed = results.filter((result) => result.run.status !== 'completed');
    const codes = failed.map((result) => `seed ${result.seed}: ${result.run.failure?.code}`);
    expect(codes, 'failing seeds (replay with withLatency({ seed }))').toEqual([]);
    expect(results.every((result) => result.calls === 2 && result.logs === 0)).toBe(true);
  }, 600_000);
});
