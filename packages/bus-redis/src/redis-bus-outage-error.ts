import { RunlightError } from '@runlight/runtime';

/** What a Redis outage cost this process, as reported when it ended. */
export interface RedisOutageCounts {
  /**
   * Live deltas this process published while the outage lasted: queued, then delivered in
   * order when Redis was back — all but `droppedDeltas` of them (optional: earlier reports).
   */
  sentDeltas?: number;
  /** Live deltas Redis never took (watchers elsewhere see a `seq` hole: a `reset`, a reload). */
  droppedDeltas: number;
  /** Durable-event pointers Redis never took (receivers read those events from the store). */
  droppedPointers: number;
  /** Failures the outage absorbed: socket errors, failed commands and reads, late replies. */
  failures: number;
}

/**
 * The bus lost Redis, or has it back: reported to `onError` once when an outage starts
 * (`phase: 'started'`, the first failure as `cause`) and once when it ends (`phase: 'ended'`,
 * with its duration and what it cost) — never once per dropped delta. An outage is any time
 * when one of the bus's two connections cannot reach Redis or Redis refuses what is sent.
 *
 * @example
 * onError(error) {
 *   if (RedisBusOutageError.isInstance(error) && error.phase === 'ended')
 *     metrics.gauge('redis_outage_ms', error.durationMs);
 * }
 */
export class RedisBusOutageError extends RunlightError {
  readonly kind = 'redis-bus-outage';
  override readonly name = 'RedisBusOutageError';
  readonly phase: 'started' | 'ended';
  /** When the outage began (wall clock). */
  readonly startedAt: Date;
  /** How long it lasted (monotonic clock); 0 while it goes on. */
  readonly durationMs: number;
  /** Live deltas published while it lasted (queued; delivered unless dropped). */
  readonly sentDeltas: number;
  readonly droppedDeltas: number;
  readonly droppedPointers: number;
  readonly failures: number;

  constructor(
    report:
      | { phase: 'started'; startedAt: Date }
      | ({ phase: 'ended'; startedAt: Date; durationMs: number } & RedisOutageCounts),
    options?: { cause?: unknown },
  ) {
    super(
      report.phase === 'started'
        ? 'The Redis event bus lost Redis: live deltas are delayed or dropped until it is back (reported once, and once when it ends)'
        : `The Redis event bus has Redis back after ${Math.round(report.durationMs)} ms: of ${report.sentDeltas ?? 0} live deltas sent meanwhile ${report.droppedDeltas} and ${report.droppedPointers} durable pointers dropped, ${report.failures} failures`,
      options,
    );
    this.phase = report.phase;
    this.startedAt = report.startedAt;
    this.durationMs = report.phase === 'ended' ? report.durationMs : 0;
    this.sentDeltas = report.phase === 'ended' ? (report.sentDeltas ?? 0) : 0;
    this.droppedDeltas = report.phase === 'ended' ? report.droppedDeltas : 0;
    this.droppedPointers = report.phase === 'ended' ? report.droppedPointers : 0;
    this.failures = report.phase === 'ended' ? report.failures : 1;
  }

  static isInstance(error: unknown): error is RedisBusOutageError {
    return RunlightError.isRunlightError(error) && error.kind === 'redis-bus-outage';
  }
}
