/**
 * One process of the bus benchmark (forked by `bus.ts`; argv[2] is a JSON `ChildConfig`): a
 * runner publishing deltas at the rate it is told, or a gateway following every run and
 * timing each delta from its publication (`chunk.id` carries the publisher's clock).
 */
import type { RunDeltaEvent } from '@runlight/protocol';
import type { RunEventBus } from '@runlight/runtime';
import { type BusKind, openBus } from './open-bus';

export interface ChildConfig {
  role: 'runner' | 'gateway';
  bus: BusKind;
  runIds: string[];
  /** A delta on a new base every this many per run: buffers stay the size of one answer. */
  deltasPerBase: number;
}

export type ToChild =
  | { type: 'publish'; rate: number; durationMs: number }
  | { type: 'measure' }
  | { type: 'count' }
  | { type: 'report' }
  | { type: 'close' };

export interface RunnerReport {
  type: 'published';
  published: number;
  elapsedMs: number;
  cpuMs: number;
}
export interface GatewayCount {
  type: 'counted';
  received: number;
}
export interface GatewayReport {
  type: 'received';
  received: number;
  /** Publish → delivery, ms, of every delivery since `measure`. */
  p50: number;
  p90: number;
  p99: number;
  cpuMs: number;
}

const quantile = (sorted: readonly number[], q: number) =>
  sorted.length === 0
    ? Number.NaN
    : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

const config = JSON.parse(process.argv[2]!) as ChildConfig;
const send = (message: object) => process.send!(message);
const now = () => performance.timeOrigin + performance.now();
const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1_000;
};
const errors: string[] = [];
const bus: RunEventBus & { close(): Promise<void>; flushed(): Promise<void> } = await openBus(
  config.bus,
  (error) => {
    if (errors.length < 5) errors.push(String(error));
  },
);

let received = 0;
let latencies: number[] = [];
let cpuSince = process.cpuUsage();
if (config.role === 'gateway') {
  for (const runId of config.runIds) {
    bus.subscribe(runId, (event) => {
      if (event.type !== 'run-delta' || event.chunk.type !== 'text-delta') return;
      received++;
      latencies.push(now() - Number(event.chunk.id));
    });
  }
}

const seqs = new Map(config.runIds.map((runId) => [runId, { base: 0, seq: 0 }]));
let turn = 0;
function publishOne(): void {
  const runId = config.runIds[turn++ % config.runIds.length]!;
  const at = seqs.get(runId)!;
  if (++at.seq > config.deltasPerBase) {
    at.base++;
    at.seq = 1;
  }
  const delta: RunDeltaEvent = {
    type: 'run-delta',
    runId,
    baseRevision: at.base,
    seq: at.seq,
    chunk: { type: 'text-delta', id: String(now()), delta: `w${turn % 89} ` },
  };
  bus.publish(delta);
}

/** Publishes `rate` deltas/s for `durationMs`, in 5 ms slices; returns how many it managed. */
async function publish(rate: number, durationMs: number): Promise<RunnerReport> {
  const since = process.cpuUsage();
  const started = performance.now();
  let published = 0;
  while (performance.now() - started < durationMs) {
    const due = Math.floor(((performance.now() - started) / 1_000) * rate);
    while (published < due) {
      publishOne();
      published++;
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const elapsedMs = performance.now() - started;
  await bus.flushed();
  return { type: 'published', published, elapsedMs, cpuMs: cpuMs(since) };
}

process.on('message', async (message: ToChild) => {
  switch (message.type) {
    case 'publish':
      send(await publish(message.rate, message.durationMs));
      break;
    case 'measure':
      received = 0;
      latencies = [];
      cpuSince = process.cpuUsage();
      send({ type: 'measuring' });
      break;
    case 'count':
      send({ type: 'counted', received } satisfies GatewayCount);
      break;
    case 'report': {
      const cpu = cpuMs(cpuSince);
      const sorted = latencies.sort((a, b) => a - b);
      const [p50, p90, p99] = [0.5, 0.9, 0.99].map((q) => quantile(sorted, q)) as [
        number,
        number,
        number,
      ];
      send({ type: 'received', received, p50, p90, p99, cpuMs: cpu } satisfies GatewayReport);
      break;
    }
    case 'close':
      await bus.close();
      if (errors.length > 0) process.stderr.write(`${config.role} errors: ${errors.join('; ')}\n`);
      process.exit(0);
  }
});
send({ type: 'ready' });
