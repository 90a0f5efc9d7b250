import { monitorEventLoopDelay } from 'node:perf_hooks';
import { SAMPLE_EVERY, type ServerStats, wallNow } from './slot-schedule';

interface RunTrack {
  first: number;
  last: number;
  deltas: number;
}

/**
 * What a server process measures about itself over the parent's window: CPU, peak RSS, the
 * publish time of sampled deltas, each run's streaming rate and the event-loop delay.
 */
export class ServerRecorder {
  readonly #role: string;
  #runs = new Map<string, RunTrack>();
  #published: Record<string, number> = {};
  #cpu = process.cpuUsage();
  #started = performance.now();
  #rssPeak = 0;
  readonly #loop = monitorEventLoopDelay({ resolution: 10 });
  readonly #sampler: ReturnType<typeof setInterval>;

  constructor(role: string) {
    this.#role = role;
    this.#loop.enable();
    this.#sampler = setInterval(() => {
      this.#rssPeak = Math.max(this.#rssPeak, process.memoryUsage.rss());
    }, 250);
    this.#sampler.unref();
  }

  /** A delta of `runId` was published now. */
  delta(runId: string, baseRevision: number, seq: number): void {
    const at = wallNow();
    let track = this.#runs.get(runId);
    if (!track) {
      track = { first: at, last: at, deltas: 0 };
      this.#runs.set(runId, track);
    }
    track.last = at;
    track.deltas++;
    if (seq % SAMPLE_EVERY === 0) this.#published[`${runId}|${baseRevision}:${seq}`] = at;
  }

  startWindow(): void {
    this.#runs = new Map();
    this.#published = {};
    this.#cpu = process.cpuUsage();
    this.#started = performance.now();
    this.#rssPeak = process.memoryUsage.rss();
    this.#loop.reset();
  }

  endWindow(): ServerStats {
    const cpu = process.cpuUsage(this.#cpu);
    const runRates: number[] = [];
    for (const track of this.#runs.values()) {
      const seconds = (track.last - track.first) / 1000;
      // Only runs seen streaming for a good part of their answer say something about their rate.
      if (track.deltas >= 50 && seconds > 0) runRates.push((track.deltas - 1) / seconds);
    }
    const rss = process.memoryUsage.rss();
    return {
      role: this.#role,
      cpuMicros: cpu.user + cpu.system,
      windowMs: performance.now() - this.#started,
      rssPeak: Math.max(this.#rssPeak, rss),
      rssEnd: rss,
      runRates,
      published: this.#published,
      loopDelayP99: this.#loop.percentile(99) / 1e6,
    };
  }

  close(): void {
    clearInterval(this.#sampler);
    this.#loop.disable();
  }
}
