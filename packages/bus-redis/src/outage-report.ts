import { performance } from 'node:perf_hooks';
import { RedisBusOutageError, type RedisOutageCounts } from './redis-bus-outage-error';

/** The bus's two connections: an outage lasts while either cannot reach Redis. */
export type RedisSide = 'sending' | 'reading';

/**
 * Turns the failures of one bus (one process) into two reports per outage instead of one per
 * failure: the first failure while every side was up starts an outage (reported at once, a
 * `RedisBusOutageError` with the failure as `cause`); later ones are counted; the moment every
 * side is up again it ends (reported with its duration and counts).
 *
 *   up ──fail(side)──▶ down (report 'started') ──fail / dropped──▶ down (count)
 *   down ──up(side), every side up──▶ up (report 'ended')
 */
export class OutageReport {
  readonly #report: (error: unknown) => void;
  readonly #down = new Set<RedisSide>();
  #startedAt: Date | null = null;
  #startedAtMs = 0;
  #counts: Required<RedisOutageCounts> = {
    sentDeltas: 0,
    droppedDeltas: 0,
    droppedPointers: 0,
    failures: 0,
  };

  constructor(report: (error: unknown) => void) {
    this.#report = report;
  }

  /** Whether an outage is going on. */
  get active(): boolean {
    return this.#startedAt !== null;
  }

  /** `side` failed to reach Redis (or Redis refused a command). */
  fail(side: RedisSide, error: unknown): void {
    this.#down.add(side);
    if (this.#startedAt !== null) {
      this.#counts.failures++;
      return;
    }
    this.#startedAt = new Date();
    this.#startedAtMs = performance.now();
    this.#counts = { sentDeltas: 0, droppedDeltas: 0, droppedPointers: 0, failures: 1 };
    this.#report(
      new RedisBusOutageError({ phase: 'started', startedAt: this.#startedAt }, { cause: error }),
    );
  }

  /** Live deltas published now: counted while an outage goes on (they wait in the queue). */
  sent(deltas: number): void {
    if (this.#startedAt !== null) this.#counts.sentDeltas += deltas;
  }

  /** What a failed command carried, lost (its failure is reported through `fail`). */
  dropped(deltas: number, pointers: number): void {
    this.#counts.droppedDeltas += deltas;
    this.#counts.droppedPointers += pointers;
  }

  /** `side` reaches Redis again (a reply, a reconnection). */
  up(side: RedisSide): void {
    if (!this.#down.delete(side) || this.#down.size > 0 || this.#startedAt === null) return;
    const startedAt = this.#startedAt;
    this.#startedAt = null;
    this.#report(
      new RedisBusOutageError({
        phase: 'ended',
        startedAt,
        durationMs: performance.now() - this.#startedAtMs,
        ...this.#counts,
      }),
    );
  }
}
