/**
 * Tokens per second per core with no watchers: 100 concurrent runs of 200 tokens, the runtime
 * (memory store, every delta published, checkpoints) against a bare AI SDK `streamText` +
 * `toUIMessageStream` read to the end, on the same model — `scriptedModel`, and the AI SDK's own
 * `MockLanguageModelV4` + `simulateReadableStream` as the reference for what a model costs.
 * "Per core" is tokens over this process's CPU time (user + system), so idle waits between
 * tokens do not count and a shared machine's other load barely does. Each round's own
 * runtime / bare ratio (the two ran back to back) is shown too, median and range: on a shared
 * machine one run's overall ratio strays by several hundredths, and the range shows how far.
 *
 *   pnpm bench:fanout --only throughput [--token-ms 20] [--rounds 4]
 *
 * To profile one side: `--side runtime` (or `bare`) and `--model scripted` (or `mock`) run just
 * that, e.g. `node --cpu-prof --import tsx --conditions=@runlight/source
 * packages/runtime/bench/fanout/throughput.ts --side runtime --model scripted`.
 */
import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { simulateReadableStream, streamText, toUIMessageStream } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { createAgentRuntime } from '../../src/runner/agent-runtime';
import { createAgentRuntimeStore } from '../../src/store/agent-runtime-store';
import { createMemoryDriver } from '../../src/store/driver/memory-driver';
import { scriptedModel } from '../../src/testing/scripted-model';

const RUNS = 100;
const TOKENS = 200;
const text = Array.from({ length: TOKENS }, (_, index) => `tok${index} `);
const messages = [{ role: 'user' as const, content: 'Go' }];

type ModelFactory = (tokenMs: number) => MockLanguageModelV4;

const scripted: ModelFactory = (tokenMs) => scriptedModel([{ tokenMs, text }]);

/** The AI SDK's own mock: the same parts as `scriptedModel`, timed by `simulateReadableStream`. */
const sdkMock: ModelFactory = (tokenMs) =>
  new MockLanguageModelV4({
    doStream: async () => {
      const chunks: LanguageModelV4StreamPart[] = [
        { type: 'stream-start', warnings: [] },
        { type: 'text-start', id: 'text-0' },
        ...text.map((delta) => ({ type: 'text-delta' as const, id: 'text-0', delta })),
        { type: 'text-end', id: 'text-0' },
        {
          type: 'finish',
          usage: {
            inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
            outputTokens: { total: TOKENS, text: TOKENS, reasoning: 0 },
          },
          finishReason: { unified: 'stop', raw: 'stop' },
        },
      ];
      return {
        stream: simulateReadableStream({
          chunks,
          initialDelayInMs: null,
          chunkDelayInMs: tokenMs > 0 ? tokenMs : null,
        }),
      };
    },
  });

async function bare(model: MockLanguageModelV4): Promise<void> {
  const result = streamText({ model, messages });
  const reader = toUIMessageStream({ stream: result.stream }).getReader();
  while (!(await reader.read()).done) {}
}

/** The model alone: its provider stream read to the end. */
async function modelAlone(model: MockLanguageModelV4): Promise<void> {
  const { stream } = await model.doStream({ prompt: [] } as unknown as Parameters<
    MockLanguageModelV4['doStream']
  >[0]);
  const reader = stream.getReader();
  while (!(await reader.read()).done) {}
}

let runs = 0;
function runtimeRunner() {
  const store = createAgentRuntimeStore(createMemoryDriver());
  const runtime = createAgentRuntime({ store, owner: 'throughput', onLog: () => {} });
  return async (model: MockLanguageModelV4) => {
    const run = await runtime.startRun({ runId: `t-${runs++}`, model, messages }).done;
    if (run.status !== 'completed') throw new Error(`run ended ${run.status}`);
  };
}

type Execute = (model: MockLanguageModelV4) => Promise<void>;

/**
 * Tokens per CPU-second of each side over `rounds` rounds of `RUNS` concurrent runs (after one
 * warm-up round each), and per round (`rounds` figures each). The sides take turns round by
 * round, so a drift of the machine's load or of this process's heap during the measurement
 * falls on all of them alike — and two sides' figures of one round form a pair.
 */
async function tokensPerCore(
  sides: readonly Execute[],
  model: ModelFactory,
  tokenMs: number,
  rounds: number,
): Promise<{ perCore: number; wall: number; perRound: number[] }[]> {
  const round = (execute: Execute) =>
    Promise.all(Array.from({ length: RUNS }, () => execute(model(tokenMs))));
  for (const execute of sides) await round(execute);
  const cpuMicros = sides.map(() => 0);
  const wallMs = sides.map(() => 0);
  const perRound = sides.map((): number[] => []);
  for (let i = 0; i < rounds; i++) {
    for (const [index, execute] of sides.entries()) {
      const cpu = process.cpuUsage();
      const start = performance.now();
      await round(execute);
      const used = process.cpuUsage(cpu);
      cpuMicros[index]! += used.user + used.system;
      perRound[index]!.push((RUNS * TOKENS) / ((used.user + used.system) / 1e6));
      wallMs[index]! += performance.now() - start;
    }
  }
  const tokens = rounds * RUNS * TOKENS;
  return sides.map((_, index) => ({
    perCore: tokens / (cpuMicros[index]! / 1e6),
    wall: tokens / (wallMs[index]! / 1000),
    perRound: perRound[index]!,
  }));
}

/**
 * The ratio of two sides round by round (each round's pair ran back to back): its median and
 * range — how far one round's figure strays on this machine, which the overall ratio hides.
 */
function pairedRatios(numerator: number[], denominator: number[]): string {
  const ratios = numerator
    .map((value, index) => value / denominator[index]!)
    .filter(Number.isFinite)
    .sort((a, b) => a - b);
  if (ratios.length === 0) return 'NaN';
  const middle = ratios.length / 2;
  const median =
    ratios.length % 2 === 1
      ? ratios[Math.floor(middle)]!
      : (ratios[middle - 1]! + ratios[middle]!) / 2;
  return `${median.toFixed(2)} (${ratios[0]!.toFixed(2)}–${ratios.at(-1)!.toFixed(2)})`;
}

export async function runThroughput(argv = process.argv.slice(2)): Promise<void> {
  const value = (name: string) => {
    const at = argv.indexOf(`--${name}`);
    return at >= 0 ? argv[at + 1] : undefined;
  };
  const tokenMs = Number(value('token-ms') ?? 20);
  const rounds = Number(value('rounds') ?? 4);
  const side = value('side') ?? 'all';
  const only = value('model') ?? 'all';
  console.log(
    `\nThroughput: ${RUNS} concurrent runs × ${TOKENS} tokens, ${tokenMs} ms apart, ${rounds} rounds each (+1 warm-up), the sides taking turns round by round, tokens per CPU-second`,
  );
  const rows: Record<string, string>[] = [];
  const skipped = { perCore: Number.NaN, wall: Number.NaN, perRound: [] };
  for (const model of [
    ['scriptedModel', scripted, 'scripted'],
    ['MockLanguageModelV4 + simulateReadableStream', sdkMock, 'mock'],
  ] as const) {
    if (only !== 'all' && only !== model[2]) continue;
    const sides = (
      [
        ['model', modelAlone],
        ['bare', bare],
        ['runtime', runtimeRunner()],
      ] as const
    ).filter(([which]) => side === 'all' || side === which);
    const measured = await tokensPerCore(
      sides.map(([, execute]) => execute),
      model[1],
      tokenMs,
      rounds,
    );
    const of = (which: string) => measured[sides.findIndex(([name]) => name === which)] ?? skipped;
    const [alone, baseline, runtime] = [of('model'), of('bare'), of('runtime')];
    rows.push({
      model: model[0],
      'model alone tok/s/core': alone.perCore.toFixed(0),
      'bare streamText + toUIMessageStream tok/s/core': baseline.perCore.toFixed(0),
      'runtime tok/s/core': runtime.perCore.toFixed(0),
      'runtime / bare': (runtime.perCore / baseline.perCore).toFixed(2),
      'per round: median (min–max)': pairedRatios(runtime.perRound, baseline.perRound),
      'bare wall tok/s': baseline.wall.toFixed(0),
      'runtime wall tok/s': runtime.wall.toFixed(0),
    });
  }
  console.table(rows);
  const [scriptedRow, mockRow] = rows;
  const alone = (row: Record<string, string> | undefined) =>
    Number(row?.['model alone tok/s/core']);
  console.log(
    `scriptedModel alone costs ${(alone(mockRow) / alone(scriptedRow)).toFixed(2)}× the SDK mock per token`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await runThroughput();
