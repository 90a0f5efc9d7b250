/**
 * Named points where the example's scripted run holds until released: by a test (`POST
 * /test/release/:name`), so a browser test waits on events rather than on the machine's
 * speed, or — when the example runs for a person — after a delay of its own.
 */
export class Gates {
  readonly #held = new Map<string, () => void>();
  readonly #open = new Set<string>();
  readonly #waiters = new Map<string, (() => void)[]>();

  constructor(private readonly autoReleaseMs: Record<string, number> | null) {}

  /** Resolves when `name` is released (at once if it already was). */
  wait(name: string): Promise<void> {
    if (this.#open.has(name)) return Promise.resolve();
    for (const waiter of this.#waiters.get(name) ?? []) waiter();
    this.#waiters.delete(name);
    return new Promise((resolve) => {
      this.#held.set(name, () => {
        this.#held.delete(name);
        resolve();
      });
      const ms = this.autoReleaseMs?.[name];
      if (ms !== undefined) setTimeout(() => this.release(name), ms).unref();
    });
  }

  /** Resolves once something waits at `name` (or it was released). */
  reached(name: string): Promise<void> {
    if (this.#held.has(name) || this.#open.has(name)) return Promise.resolve();
    return new Promise((resolve) => {
      this.#waiters.set(name, [...(this.#waiters.get(name) ?? []), resolve]);
    });
  }

  release(name: string): void {
    this.#open.add(name);
    this.#held.get(name)?.();
  }

  get held(): string[] {
    return [...this.#held.keys()];
  }
}
