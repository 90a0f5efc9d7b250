import { type AgentRun, isTerminalStatus } from '@runlight/protocol';

/** How many runs' last published revision the decorator remembers. */
const PUBLISHED_CACHE_SIZE = 4_096;

/**
 * The highest revision of each run whose event this runtime published (or knows published),
 * bounded (the oldest run is forgotten first). A write that landed unseen leaves a gap; the next
 * mutation of the run fills it from the log before it writes, so the runtime's events stay
 * gapless and in revision order.
 */
export class PublishedRevisions {
  readonly #revisions = new Map<string, number>();

  get(runId: string): number | undefined {
    return this.#revisions.get(runId);
  }

  set(runId: string, revision: number): void {
    this.#revisions.set(runId, revision);
  }

  delete(runId: string): void {
    this.#revisions.delete(runId);
  }

  /** Records `run`'s revision as published (a terminal run is forgotten); returns `run`. */
  mark(run: AgentRun): AgentRun {
    if (isTerminalStatus(run.status)) this.#revisions.delete(run.id);
    else if ((this.#revisions.get(run.id) ?? 0) < run.revision) {
      this.#revisions.delete(run.id);
      if (this.#revisions.size >= PUBLISHED_CACHE_SIZE) {
        this.#revisions.delete(this.#revisions.keys().next().value as string);
      }
      this.#revisions.set(run.id, run.revision);
    }
    return run;
  }
}
