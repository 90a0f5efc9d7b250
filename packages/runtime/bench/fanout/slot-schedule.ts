/**
 * The workload of the fan-out benchmark, shared by the server roles and the client.
 *
 * `SLOTS` slots each execute one run after another: a first-token wait, then `TOKENS` text
 * tokens `TOKEN_MS` apart. Run `k` of slot `s` is `s<s>-r<k>`; run `k + 1` is created (queued)
 * when run `k` starts, so a watcher whose stream ended can follow the slot's next run at once.
 */
export interface Workload {
  slots: number;
  firstTokenMs: number;
  tokens: number;
  tokenMs: number;
}

export const DEFAULT_WORKLOAD: Workload = {
  slots: 100,
  firstTokenMs: 1_000,
  tokens: 200,
  tokenMs: 20,
};

export function runIdOf(slot: number, k: number): string {
  return `s${slot}-r${k}`;
}

/** `[slot, k]` of a run id, or null. */
export function parseRunId(runId: string): [number, number] | null {
  const match = /^s(\d+)-r(\d+)$/.exec(runId);
  return match ? [Number(match[1]), Number(match[2])] : null;
}

/** The text of one run: `tokens` words that the scripted model streams one by one. */
export function runText(workload: Workload): string[] {
  return Array.from({ length: workload.tokens }, (_, index) => `tok${index} `);
}

/** Latency is sampled on every `SAMPLE_EVERY`-th delta of a run (publish side and receive side). */
export const SAMPLE_EVERY = 10;

/** A wall clock with sub-millisecond resolution, comparable across processes of one machine. */
export function wallNow(): number {
  return performance.timeOrigin + performance.now();
}

/** Messages a server process sends its parent. */
export type ServerMessage =
  | { type: 'ready'; port: number | null }
  | { type: 'slot'; slot: number; k: number }
  | { type: 'stats'; stats: ServerStats }
  | { type: 'probe'; rss: number; heapUsed: number };

/** Messages the parent sends a server process. */
export type ParentMessage =
  | { type: 'window-start' }
  | { type: 'window-end' }
  | { type: 'stop' }
  /** Memory after a full GC (the server runs with `--expose-gc`). */
  | { type: 'probe' };

/** What one server process measured over a window. */
export interface ServerStats {
  role: string;
  cpuMicros: number;
  windowMs: number;
  rssPeak: number;
  rssEnd: number;
  /** Streaming rate of each run that streamed in the window: deltas/s from first to last. */
  runRates: number[];
  /** `runId|baseRevision:seq` → publish time, for sampled deltas. */
  published: Record<string, number>;
  /** Event-loop delay p99 in ms over the window. */
  loopDelayP99: number;
}
