/**
 * Named points where a scenario's run holds until a test releases it, so a browser test waits
 * on events rather than on the machine's speed (like `examples/ag-ui/server/gates.ts`). Test
 * servers only (`startDemoServer({ gates: true })`): a test arms a point for the next run of a
 * scenario (`hold`) and lets that run go on (`release`). A run nobody holds — every run of
 * `pnpm demo` — keeps the scenario's own timings.
 *
 * @example
 * server.gates!.hold('slow-first-token', 'first-token');
 * const runId = await playground.start('slow-first-token');
 * // … the page waits for the model for as long as the test looks …
 * server.gates!.release(runId, 'first-token');
 */
export class DemoGates {
  /** Points armed for the next run of each scenario. */
  readonly #armed = new Map<string, Set<string>>();
  /** `runId point` of every point a run is held at and that is not released yet. */
  readonly #held = new Set<string>();
  readonly #waiters = new Map<string, Set<() => void>>();

  /** The next run of `scenario` holds at `point` until `release(runId, point)`. */
  hold(scenario: string, point: string): void {
    this.#armed.set(scenario, new Set([...(this.#armed.get(scenario) ?? []), point]));
  }

  /** A run of `scenario` starts (or a batch of them): they take the points armed for it. */
  claim(scenario: string, ...runIds: string[]): void {
    for (const point of this.#armed.get(scenario) ?? []) {
      for (const runId of runIds) this.#held.add(key(runId, point));
    }
    this.#armed.delete(scenario);
  }

  /** Whether the run is held at `point` now (armed for it and not released). */
  holds(runId: string, point: string): boolean {
    return this.#held.has(key(runId, point));
  }

  /**
   * Resolves once the run may pass `point`; `undefined` when it is not held there (go on at
   * once). Rejects with the signal's reason if it aborts first (the run was cancelled).
   */
  wait(runId: string, point: string, signal?: AbortSignal): Promise<void> | undefined {
    const name = key(runId, point);
    if (!this.#held.has(name)) return undefined;
    return new Promise<void>((resolve, reject) => {
      const waiters = this.#waiters.get(name) ?? new Set();
      this.#waiters.set(name, waiters);
      const onAbort = () => {
        waiters.delete(done);
        reject(signal?.reason);
      };
      const done = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      if (signal?.aborted) return onAbort();
      waiters.add(done);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Lets the run go on past `point`. */
  release(runId: string, point: string): void {
    const name = key(runId, point);
    this.#held.delete(name);
    for (const waiter of this.#waiters.get(name) ?? []) waiter();
    this.#waiters.delete(name);
  }
}

const key = (runId: string, point: string) => `${runId} ${point}`;
