/**
 * Issue 27 benchmark: what the telemetry costs per streamed token, as ratios in one process.
 *
 *   pnpm bench:otel            (ROUNDS=40 TOKENS=1000 to change the size)
 *
 * One run = a 3-step tool run (two tool calls, then an answer of TOKENS text tokens) on the
 * memory store at the default checkpoint cadence. Four variants, interleaved round by round so
 * that drift (other work on the machine, JIT, GC) hits all alike:
 * - `off`: no telemetry (the baseline), and `off (control)`: the same again — its ratio is the
 *   noise of the measurement on this machine;
 * - `no-op tracer`: `createOtelTelemetry()` on the API with no SDK registered (a library in an
 *   app that never set up OpenTelemetry);
 * - `sdk batch`: the SDK's `BasicTracerProvider` with a `BatchSpanProcessor` (to an exporter
 *   that drops what it is given: the cost of spans, not of a network) and the SDK's
 *   `MeterProvider` with a reader.
 * CPU time (`process.cpuUsage`, user + system) per run, divided by its tokens. Prints the
 * median cost per token of each variant and the median of its per-round ratios to `off`
 * (paired: the same moment of the machine); exits 1 when a ratio misses its goal (no-op
 * ≤ 1.03, batch ≤ 1.10).
 */
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { isStepCount, tool } from 'ai';
import { z } from 'zod';
import { createOtelTelemetry } from '../src/otel/create-otel-telemetry';
import { createAgentRuntime } from '../src/runner/agent-runtime';
import { createAgentRuntimeStore } from '../src/store/agent-runtime-store';
import { createMemoryDriver } from '../src/store/driver/memory-driver';
import type { RunTelemetry } from '../src/telemetry/run-telemetry';
import { scriptedModel } from '../src/testing/scripted-model';

const ROUNDS = Number(process.env.ROUNDS ?? 40);
const TOKENS = Number(process.env.TOKENS ?? 1000);
const GOALS: Record<string, number> = { 'no-op tracer': 1.03, 'sdk batch': 1.1 };

class DroppingExporter implements SpanExporter {
  exported = 0;
  export(spans: ReadableSpan[], done: (result: { code: number }) => void): void {
    this.exported += spans.length;
    done({ code: 0 });
  }
  async shutdown(): Promise<void> {}
}

class Reader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

const exporter = new DroppingExporter();
const sdkTracer = new BasicTracerProvider({
  spanProcessors: [new BatchSpanProcessor(exporter)],
});
const sdkMeter = new MeterProvider({ readers: [new Reader()] });

// One telemetry per variant, as an app has one per runtime; `off (control)` repeats the
// baseline, so its ratio shows how much of a difference is the machine's noise.
const variants: { name: string; telemetry: RunTelemetry | undefined }[] = [
  { name: 'off', telemetry: undefined },
  { name: 'off (control)', telemetry: undefined },
  { name: 'no-op tracer', telemetry: createOtelTelemetry() },
  {
    name: 'sdk batch',
    telemetry: createOtelTelemetry({ tracerProvider: sdkTracer, meterProvider: sdkMeter }),
  },
];

const noop = tool({ inputSchema: z.object({}), execute: async () => 'ok' });
const answer = Array.from({ length: TOKENS }, (_, index) => `w${index} `);
let runs = 0;

async function oneRun(telemetry: RunTelemetry | undefined): Promise<number> {
  const store = createAgentRuntimeStore(createMemoryDriver());
  const runtime = createAgentRuntime({
    store,
    owner: 'bench',
    onLog: () => {},
    ...(telemetry ? { telemetry } : {}),
  });
  const model = scriptedModel([
    { toolCalls: [{ toolName: 'noop', input: {} }] },
    { toolCalls: [{ toolName: 'noop', input: {} }] },
    { text: answer },
  ]);
  const before = process.cpuUsage();
  const run = await runtime.startRun({
    runId: `run-${runs++}`,
    model,
    messages: [{ role: 'user', content: 'Go' }],
    tools: { noop },
    stopWhen: isStepCount(5),
  }).done;
  const used = process.cpuUsage(before);
  if (run.status !== 'completed') throw new Error(`run ended ${run.status}`);
  return (used.user + used.system) / TOKENS; // µs of CPU per token
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

// Warm-up: JIT and module caches for every variant.
for (let round = 0; round < 5; round++) {
  for (const variant of variants) await oneRun(variant.telemetry);
}
const costs = new Map<string, number[]>(variants.map((variant) => [variant.name, []]));
for (let round = 0; round < ROUNDS; round++) {
  // Rotate the order each round, so no variant always runs first (after a GC, say).
  for (let index = 0; index < variants.length; index++) {
    const variant = variants[(round + index) % variants.length]!;
    costs.get(variant.name)!.push(await oneRun(variant.telemetry));
  }
}
await sdkTracer.forceFlush();

const off = costs.get('off')!;
let missed = false;
const rows = variants.map(({ name }) => {
  const own = costs.get(name)!;
  const cost = median(own);
  // Paired by round (the same moment of the machine), then the median of those ratios.
  const ratio = median(own.map((value, round) => value / off[round]!));
  const goal = GOALS[name];
  if (goal !== undefined && ratio > goal) missed = true;
  return {
    variant: name,
    'CPU µs / token (median)': cost.toFixed(2),
    'ratio to off (median of rounds)': ratio.toFixed(3),
    goal: goal === undefined ? '' : `≤ ${goal.toFixed(2)}`,
  };
});
console.log(`${ROUNDS} rounds, ${TOKENS} text tokens + 2 tool steps per run`);
console.table(rows);
console.log(`spans exported by the batch processor: ${exporter.exported}`);
await sdkTracer.shutdown();
await sdkMeter.shutdown();
if (missed) {
  console.error('A telemetry variant missed its overhead goal.');
  process.exitCode = 1;
}
