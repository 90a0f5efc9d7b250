/**
 * Issue 3 benchmark: what the runner adds to an AI SDK run, in one process run.
 *
 *   npx vitest bench --run --project runtime runner.bench
 *
 * 1. Admission overhead: time until the provider's `doStream` is entered, runtime (memory
 *    store) vs a bare `streamText` on the same mock model — (a) from the call for step 0
 *    (includes create, acquire and admission) and (b) the gap between step 0's provider stream
 *    ending and step 1's `doStream` (op completed, tool-call / tool-result / finish-step
 *    checkpoints, the managed tool fence and admission). Median and p99 are printed as a table;
 *    goal ≤ 1 ms median.
 * 2. Write amplification of a 2,000-delta answer at cadence 1, 16, 32 (the default) and 64,
 *    and 32 with the opt-in `checkpointMinGrowth` 0.5 and 1: store writes and bytes written
 *    (records and events as JSON; the assistant events — appends and consolidations — apart)
 *    vs the final message. `append-checkpoints.bench.ts` compares with whole-message writes.
 * Vitest's own groups then compare whole runs (ops/s ratios, same process).
 */
import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { isStepCount, streamText, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { bench, describe } from 'vitest';
import { z } from 'zod';
import { createAgentRuntime } from '../src/runner/agent-runtime';
import { createAgentRuntimeStore } from '../src/store/agent-runtime-store';
import type { AgentRuntimeDriver } from '../src/store/driver/driver';
import { createMemoryDriver } from '../src/store/driver/memory-driver';
import { wholeStoredEvent } from '../src/store/log/packed-event';
import { scriptedModel } from '../src/testing/scripted-model';

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};
const messages = [{ role: 'user' as const, content: 'Go' }];
const noop = tool({ inputSchema: z.object({}), execute: async () => 'ok' });

/** A 2-step tool model that timestamps the end of step 0 and the entry of each doStream. */
function timedModel() {
  const marks = { enter: [] as number[], step0End: 0 };
  let calls = 0;
  const model = new MockLanguageModelV4({
    doStream: async () => {
      marks.enter.push(performance.now());
      const index = calls++;
      const parts: LanguageModelV4StreamPart[] =
        index === 0
          ? [
              { type: 'stream-start', warnings: [] },
              { type: 'tool-call', toolCallId: 'c1', toolName: 'noop', input: '{}' },
              { type: 'finish', usage, finishReason: { unified: 'tool-calls', raw: 'tool_calls' } },
            ]
          : [
              { type: 'stream-start', warnings: [] },
              { type: 'text-start', id: 't' },
              { type: 'text-delta', id: 't', delta: 'done' },
              { type: 'text-end', id: 't' },
              { type: 'finish', usage, finishReason: { unified: 'stop', raw: 'stop' } },
            ];
      let next = 0;
      return {
        stream: new ReadableStream<LanguageModelV4StreamPart>({
          pull(controller) {
            const part = parts[next++];
            if (part) controller.enqueue(part);
            else {
              if (index === 0) marks.step0End = performance.now();
              controller.close();
            }
          },
        }),
      };
    },
  });
  return { model, marks };
}

let runs = 0;
async function viaRuntime() {
  const store = createAgentRuntimeStore(createMemoryDriver());
  const runtime = createAgentRuntime({ store, owner: 'bench', onLog: () => {} });
  const { model, marks } = timedModel();
  const start = performance.now();
  const run = await runtime.startRun({
    runId: `bench-${runs++}`,
    model,
    messages,
    tools: { noop },
    stopWhen: isStepCount(3),
  }).done;
  if (run.status !== 'completed') throw new Error(`bench run ended ${run.status}`);
  return { first: marks.enter[0]! - start, gap: marks.enter[1]! - marks.step0End };
}

async function viaBareStreamText() {
  const { model, marks } = timedModel();
  const start = performance.now();
  const result = streamText({ model, messages, tools: { noop }, stopWhen: isStepCount(3) });
  await result.consumeStream();
  return { first: marks.enter[0]! - start, gap: marks.enter[1]! - marks.step0End };
}

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
};

async function admissionTable(samples = 400) {
  const measure = async (fn: typeof viaRuntime) => {
    for (let i = 0; i < 50; i++) await fn(); // warm-up
    const out = { first: [] as number[], gap: [] as number[] };
    for (let i = 0; i < samples; i++) {
      const { first, gap } = await fn();
      out.first.push(first);
      out.gap.push(gap);
    }
    return out;
  };
  const bare = await measure(viaBareStreamText);
  const runtime = await measure(viaRuntime);
  const row = (name: string, values: { first: number[]; gap: number[] }) => ({
    name,
    'call→doStream median ms': quantile(values.first, 0.5).toFixed(3),
    'call→doStream p99 ms': quantile(values.first, 0.99).toFixed(3),
    'step gap median ms': quantile(values.gap, 0.5).toFixed(3),
    'step gap p99 ms': quantile(values.gap, 0.99).toFixed(3),
  });
  console.log('\nAdmission overhead (memory store)');
  console.table([row('bare streamText', bare), row('runtime', runtime)]);
  console.log(
    `added median: step 0 ${(quantile(runtime.first, 0.5) - quantile(bare.first, 0.5)).toFixed(3)} ms, ` +
      `step 1 ${(quantile(runtime.gap, 0.5) - quantile(bare.gap, 0.5)).toFixed(3)} ms`,
  );
}

/** A driver that counts compare-and-sets and the JSON bytes of what each one stores. */
function countingDriver() {
  const inner = createMemoryDriver();
  const counts = { writes: 0, bytes: 0, checkpointBytes: 0 };
  const driver: AgentRuntimeDriver = {
    ...inner,
    compareAndSet: async (runId, expected, next, events, head) => {
      const written = await inner.compareAndSet(runId, expected, next, events, head);
      if (written) {
        counts.writes++;
        counts.bytes += JSON.stringify(next).length + JSON.stringify(events).length;
        for (const event of events) {
          const { type } = wholeStoredEvent(event);
          if (type === 'assistant-checkpoint' || type === 'assistant-append') {
            counts.checkpointBytes += JSON.stringify(event).length;
          }
        }
      }
      return written;
    },
  };
  return { driver, counts };
}

const answer = Array.from({ length: 1996 }, (_, i) => `word${i} `);

async function longAnswer(cadence: number, checkpointMinGrowth?: number) {
  const { driver, counts } = countingDriver();
  const store = createAgentRuntimeStore(driver);
  const runtime = createAgentRuntime({
    store,
    owner: 'bench',
    checkpointEveryEvents: cadence,
    checkpointMinGrowth,
    onLog: () => {},
  });
  const runId = `long-${cadence}-${runs++}`;
  let deltas = 0;
  runtime.subscribe(runId, (event) => {
    if (event.type === 'run-delta') deltas++;
  });
  await runtime.startRun({ runId, model: scriptedModel([{ text: answer }]), messages }).done;
  const snapshot = await store.getSnapshot(runId);
  const finalBytes = JSON.stringify(snapshot.assistant?.message).length;
  return { deltas, counts, finalBytes };
}

async function writeTable() {
  const rows = [];
  for (const [cadence, growth] of [[1], [16], [32], [64], [32, 0.5], [32, 1]] as [
    number,
    number?,
  ][]) {
    const { deltas, counts, finalBytes } = await longAnswer(cadence, growth);
    rows.push({
      cadence: growth === undefined ? cadence : `${cadence} + growth ${growth}`,
      deltas,
      'store writes': counts.writes,
      'bytes written': counts.bytes,
      'assistant event bytes': counts.checkpointBytes,
      'final message bytes': finalBytes,
      'assistant bytes / final': (counts.checkpointBytes / finalBytes).toFixed(1),
      'all bytes / final': (counts.bytes / finalBytes).toFixed(1),
    });
  }
  console.log('\nWrites for a 2,000-delta answer');
  console.table(rows);
}

describe('runner: whole 2-step tool run, runtime vs bare streamText', async () => {
  await admissionTable();
  await writeTable();

  bench('bare streamText (baseline)', async () => {
    await viaBareStreamText();
  });

  bench('runtime.startRun with the memory store', async () => {
    await viaRuntime();
  });
});

describe('runner: a 2,000-delta answer by cadence', () => {
  for (const cadence of [1, 32, 64]) {
    bench(
      `checkpointEveryEvents ${cadence}`,
      async () => {
        await longAnswer(cadence);
      },
      { iterations: 5, time: 0, warmupIterations: 1 },
    );
  }
});
