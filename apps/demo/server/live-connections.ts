/**
 * The open event streams per run, so the playground can drop them on the server side (as a
 * proxy or a flaky network would) and the client has to resume from its cursor.
 *
 * @example
 * const connections = new LiveConnections();
 * const release = connections.add('run-1', abortController);
 * connections.drop('run-1'); // 1
 */
export class LiveConnections {
  readonly #byRun = new Map<string, Set<AbortController>>();

  /** Tracks one stream; returns its release (call it when the stream ends). */
  add(runId: string, connection: AbortController): () => void {
    const set = this.#byRun.get(runId) ?? new Set();
    set.add(connection);
    this.#byRun.set(runId, set);
    return () => {
      set.delete(connection);
      if (set.size === 0 && this.#byRun.get(runId) === set) this.#byRun.delete(runId);
    };
  }

  /** Aborts every open stream of the run; returns how many there were. */
  drop(runId: string): number {
    const set = this.#byRun.get(runId);
    if (!set) return 0;
    this.#byRun.delete(runId);
    for (const connection of set) connection.abort();
    return set.size;
  }

  dropAll(): void {
    for (const runId of [...this.#byRun.keys()]) this.drop(runId);
  }
}
