/**
 * The per-run mutation queue (ADR 0174). Inside one run every owned mutation takes its turn,
 * so a mutation starts only after its predecessor settled and can read the revision that
 * predecessor produced. Different runs have different chains and proceed in parallel.
 *
 * A failed task does not stall the chain: the next task runs and sees the revision as the
 * failure left it.
 */
export class RunMutationQueue {
  readonly #tails = new Map<string, Promise<unknown>>();

  /** Runs `task` after every task enqueued before it for `runId` has settled. */
  enqueue<T>(runId: string, task: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(runId) ?? Promise.resolve();
    const result = previous.then(task, task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.#tails.set(runId, tail);
    void tail.then(() => {
      // Forget an idle run so the map does not grow with every run ever seen.
      if (this.#tails.get(runId) === tail) this.#tails.delete(runId);
    });
    return result;
  }

  /** Resolves once every task enqueued so far for `runId` has settled. */
  async settled(runId: string): Promise<void> {
    await this.#tails.get(runId);
  }

  /** Runs with queued or running tasks (for diagnostics and tests). */
  get activeRuns(): number {
    return this.#tails.size;
  }
}
