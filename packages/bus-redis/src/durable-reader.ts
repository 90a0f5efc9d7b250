import type { DurableRunEvent } from '@runlight/protocol';
import type { AgentRuntimeStore } from '@runlight/runtime';

const LAST_REVISION = 2 ** 31 - 1;

/**
 * The bus's reads of the store's event log: the run's durable events with
 * `after < revision <= upTo`. The store reads every event after `after`; the ones past `upTo`
 * are kept for the run's next read, so a process reading a run's stream from its start (a
 * pointer after pointer) reads the log once, not once per pointer. What is kept is dropped when
 * a read starts before it or the run is forgotten.
 */
export class DurableReader {
  readonly #store: Pick<AgentRuntimeStore, 'readEvents'>;
  readonly #ahead = new Map<string, DurableRunEvent[]>();

  constructor(store: Pick<AgentRuntimeStore, 'readEvents'>) {
    this.#store = store;
  }

  async read(runId: string, after: number, upTo: number): Promise<readonly DurableRunEvent[]> {
    const ahead = this.#ahead.get(runId);
    if (
      ahead !== undefined &&
      ahead.length > 0 &&
      ahead[0]!.revision === after + 1 &&
      ahead.at(-1)!.revision >= upTo
    ) {
      const taken = ahead.filter((event) => event.revision <= upTo);
      this.#ahead.set(runId, ahead.slice(taken.length));
      return taken;
    }
    const events = await this.#store.readEvents(runId, { afterRevision: after });
    if (upTo >= LAST_REVISION) {
      this.#ahead.delete(runId);
      return events;
    }
    const taken = events.filter((event) => event.revision <= upTo);
    const rest = events.slice(taken.length);
    if (rest.length > 0) this.#ahead.set(runId, rest);
    else this.#ahead.delete(runId);
    return taken;
  }

  forget(runId: string): void {
    this.#ahead.delete(runId);
  }
}
