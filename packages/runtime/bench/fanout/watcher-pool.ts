import { Agent, type ClientRequest, get } from 'node:http';
import { runIdOf, SAMPLE_EVERY, wallNow } from './slot-schedule';

/** Every `SAMPLED_WATCHER`-th watcher parses ids to time sampled deltas (the others only count). */
const SAMPLED_WATCHER = 20;
const NEWLINE = 0x0a;
/** A message's id and its data's first `seq` (a `run-deltas` message's first; its id is the last's). */
const ID_FIRST = /^(event: run-deltas\n)?id: (\d+):(\d+):(\d+)\ndata: .*?"seq":(\d+)/gm;
/** One per text delta in either form (`run-delta` or a chunk of `run-deltas`). */
const DELTA = Buffer.from('"delta":"');

/**
 * The watchers of the fan-out benchmark: plain `http.get` event-stream readers, each following
 * one slot (watcher `i` → slot `i mod slots`, gateway `i mod ports`). When a run's stream ends
 * the watcher follows the slot's next run on the same keep-alive connection; an error counts
 * as a reset and the watcher stops.
 */
export class WatcherPool {
  readonly #ports: readonly number[];
  readonly #slots: number;
  /** The run each slot executes now (`k`), as the server reported it. */
  readonly #current: number[];
  readonly #agent = new Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });
  readonly #requests = new Set<ClientRequest>();
  #stopped = false;
  connected = 0;
  resets = 0;
  /** SSE messages received (blank-line terminated blocks). */
  delivered = 0;
  /** Text deltas received (one per `"delta":"`, alone or in a `run-deltas` message). */
  deltas = 0;
  /** Bytes of the event streams received. */
  bytes = 0;
  /** `runId|base:seq` → receive time, of sampled deltas on sampled watchers. */
  received = new Map<string, number>();
  readonly resetReasons = new Map<string, number>();

  constructor(ports: readonly number[], slots: number, current: number[]) {
    this.#ports = ports;
    this.#slots = slots;
    this.#current = current;
  }

  /**
   * Opens `count` watchers, in batches of 250 so the client's own loop stays responsive (at
   * most `perSecond` a second when given); resolves
   * once all are connected, or after `timeoutMs`, with the time it took.
   */
  async join(
    count: number,
    timeoutMs: number,
    perSecond = Number.POSITIVE_INFINITY,
  ): Promise<{ ms: number; all: boolean }> {
    const start = performance.now();
    const target = this.connected + count;
    for (let i = 0; i < count; i++) {
      const slot = i % this.#slots;
      this.#open(i, slot, this.#current[slot] ?? 0, true);
      if (i % 250 === 249) {
        // Paced (`--join-rate`): watcher i opens at i / perSecond seconds.
        const due = start + ((i + 1) / perSecond) * 1000 - performance.now();
        await new Promise((resolve) =>
          due > 0 ? setTimeout(resolve, due) : setImmediate(resolve),
        );
      }
    }
    const deadline = start + timeoutMs;
    while (this.connected + this.resets < target && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return { ms: performance.now() - start, all: this.connected >= target };
  }

  #open(index: number, slot: number, k: number, first: boolean): void {
    if (this.#stopped) return;
    const runId = runIdOf(slot, k);
    const sampled = index % SAMPLED_WATCHER === 0;
    const request = get(
      {
        host: '127.0.0.1',
        port: this.#ports[index % this.#ports.length],
        path: `/runs/${runId}/events`,
        agent: this.#agent,
        // Takes `run-deltas` messages (a server without `coalesceDeltasMs` ignores it).
        headers: { accept: 'text/event-stream; deltas=batched' },
      },
      (response) => {
        if (response.statusCode !== 200) {
          this.#reset(`status ${response.statusCode}`);
          response.resume();
          return;
        }
        if (first) this.connected++;
        let lastByte = 0;
        response.on('data', (chunk: Buffer) => {
          let count = chunk[0] === NEWLINE && lastByte === NEWLINE ? 1 : 0;
          for (let at = chunk.indexOf('\n\n'); at >= 0; at = chunk.indexOf('\n\n', at + 2)) count++;
          lastByte = chunk[chunk.length - 1]!;
          this.delivered += count;
          this.bytes += chunk.length;
          for (let at = chunk.indexOf(DELTA); at >= 0; at = chunk.indexOf(DELTA, at + 9)) {
            this.deltas++;
          }
          if (sampled) this.#sample(runId, chunk);
        });
        response.on('end', () => {
          this.#requests.delete(request);
          this.#open(index, slot, k + 1, false);
        });
      },
    );
    this.#requests.add(request);
    request.on('error', (error: NodeJS.ErrnoException) => {
      this.#requests.delete(request);
      if (!this.#stopped) this.#reset(error.code ?? error.message);
    });
  }

  #sample(runId: string, chunk: Buffer): void {
    const at = wallNow();
    for (const match of chunk.toString('latin1').matchAll(ID_FIRST)) {
      const last = Number(match[4]);
      // A `run-deltas` message holds the deltas from its `seq` to its id's.
      const first = match[1] ? Number(match[5]) : last;
      for (let seq = first; seq <= last; seq++) {
        if (seq % SAMPLE_EVERY === 0) this.received.set(`${runId}|${match[3]}:${seq}`, at);
      }
    }
  }

  #reset(reason: string): void {
    this.resets++;
    this.resetReasons.set(reason, (this.resetReasons.get(reason) ?? 0) + 1);
  }

  close(): void {
    this.#stopped = true;
    for (const request of this.#requests) request.destroy();
    this.#requests.clear();
    this.#agent.destroy();
  }
}
