import type { DurableRunEvent, RunDeltaEvent, RunEvent, RunStatusChange } from '@runlight/protocol';
import { RunEventHub, type RunEventListener } from './event-hub';

/**
 * A durable event another process published, as a bus carries it: the store holds the event,
 * so only where it is travels (and its kind, so a receiver without subscribers minds its delta
 * buffer without reading it).
 */
export interface DurablePointer {
  runId: string;
  revision: number;
  type: DurableRunEvent['type'];
  change?: RunStatusChange | undefined;
}

export interface RunDeliveryOptions {
  /** Reads what the store committed: the run's durable events with `after < revision <= upTo`. */
  read: ReadDurableEvents;
  /**
   * The run's last durable event, for a catch-up of a run none of whose events was delivered
   * here yet. Absent: the catch-up reads all of them.
   */
  readLatest?: (runId: string) => Promise<readonly DurableRunEvent[]>;
  /** Listeners that throw, failed reads, pointers to events the store lacks. */
  onError: (error: unknown) => void;
  /** The error for a pointer whose event the store does not hold (processes on other stores). */
  missingEvent?: (runId: string, revision: number) => Error;
}

/** Reads what the store committed: the run's durable events with `after < revision <= upTo`. */
export type ReadDurableEvents = (
  runId: string,
  after: number,
  upTo: number,
) => Promise<readonly DurableRunEvent[]>;

/** Per-run delivery order in this process. */
interface RunOrder {
  /** Highest durable revision delivered (or passed over without listeners); null: none yet. */
  revision: number | null;
  /** Work that must finish before the next event of the run is delivered. */
  tail: Promise<void> | null;
}

/** What a bus hands the delivery of a run: events, or a read that yields them. */
export type Produced = RunEvent | readonly RunEvent[] | Promise<readonly RunEvent[]>;

const toList = (produced: RunEvent | readonly RunEvent[]): readonly RunEvent[] =>
  Array.isArray(produced) ? produced : [produced as RunEvent];

const LAST_REVISION = 2 ** 31 - 1;

/**
 * The per-run delivery core of every bus across processes: what a process delivers to its
 * subscribers of each run, in publish order, over a `RunEventHub` (which keeps the live deltas
 * since the last checkpoint). A bus keeps only its transport and hands each event here:
 * - durable events by revision: a pointer is read from the store's event log, a skipped
 *   revision is read first, a repeated one dropped;
 * - each delta after what was accepted before it (a read in progress holds it back);
 * - after a deaf period, `catchUp` reads what the run's subscribers missed.
 *
 * @example
 * const delivery = new RunDelivery({ read: (runId, after, upTo) => readLog(runId, after, upTo),
 *   onError });
 * transport.onDelta((event) => delivery.remoteDelta(event));
 * transport.onPointer((pointer) => delivery.remotePointer(pointer));
 * transport.onHearingAgain(() => { for (const runId of delivery.runs()) delivery.catchUp(runId); });
 */
export class RunDelivery {
  readonly #hub: RunEventHub;
  readonly #orders = new Map<string, RunOrder>();
  readonly #read: ReadDurableEvents;
  readonly #readLatest: RunDeliveryOptions['readLatest'];
  readonly #onError: (error: unknown) => void;
  readonly #missingEvent: (runId: string, revision: number) => Error;

  constructor(options: RunDeliveryOptions) {
    this.#read = options.read;
    this.#readLatest = options.readLatest;
    this.#onError = options.onError;
    this.#missingEvent =
      options.missingEvent ??
      ((runId, revision) =>
        new Error(
          `Run ${runId}: event ${revision} is not in the store; do all processes use the same store?`,
        ));
    this.#hub = new RunEventHub({ onListenerError: options.onError });
  }

  /** An event published in this process: delivered at once unless a read holds the run. */
  local(event: RunEvent): void {
    this.#accept(event.runId, () => event);
  }

  /** A delta another process published. */
  remoteDelta(event: RunDeltaEvent): void {
    const order = this.#order(event.runId);
    if (order.tail !== null) {
      this.#chain(event.runId, order, () => event);
      return;
    }
    // The hot path of a gateway: no read holds the run, so no closure per delta.
    this.#hub.publish(event);
    this.#forgetIfIdle(event.runId);
  }

  /** Events another process published that need work first (e.g. a row to read). */
  remote(runId: string, produce: () => Produced): void {
    this.#accept(runId, produce);
  }

  /** A durable event another process published: its row is read when someone here listens. */
  remotePointer(pointer: DurablePointer): void {
    this.#accept(pointer.runId, () => this.#pointer(pointer));
  }

  /**
   * After the process could not hear for a while: a run whose delivered revision is known reads
   * the events after it, one with none delivered yet its latest (`readLatest`) or all of them
   * (its last one may have been missed: a subscriber waiting for it would wait forever). A delta buffer may have missed a
   * checkpoint or an end: a run nobody follows here drops it.
   */
  catchUp(runId: string): void {
    const order = this.#orders.get(runId);
    if (this.#hub.listenerCount(runId) === 0) {
      this.endRun(runId);
      return;
    }
    const after = order?.revision ?? null;
    const readLatest = this.#readLatest;
    this.#accept(runId, () =>
      after === null && readLatest
        ? readLatest(runId)
        : this.#read(runId, after ?? 0, LAST_REVISION),
    );
  }

  /** The runs this process delivers for now: followed, or holding live deltas. */
  runs(): string[] {
    return [...this.#orders.keys()];
  }

  subscribe(runId: string, listener: RunEventListener): () => void {
    this.#order(runId); // a followed run is caught up after a loss, even before its first event
    const unsubscribe = this.#hub.subscribe(runId, listener);
    return () => {
      unsubscribe();
      this.#forgetIfIdle(runId);
    };
  }

  liveDeltas(runId: string): readonly RunDeltaEvent[] {
    return this.#hub.liveDeltas(runId);
  }

  endRun(runId: string): void {
    this.#hub.endRun(runId);
    this.#forgetIfIdle(runId);
  }

  listenerCount(runId: string): number {
    return this.#hub.listenerCount(runId);
  }

  /** Resolves once every read in progress has delivered. */
  async settled(): Promise<void> {
    await Promise.all([...this.#orders.values()].map((order) => order.tail));
  }

  #accept(runId: string, produce: () => Produced): void {
    const order = this.#order(runId);
    if (order.tail !== null) {
      this.#chain(runId, order, produce);
      return;
    }
    let produced: Produced;
    try {
      produced = produce();
    } catch (error) {
      this.#onError(error);
      return;
    }
    if (produced instanceof Promise) {
      this.#chain(runId, order, () => produced);
      return;
    }
    const events = toList(produced);
    if (events.some((event) => this.#needsGap(order, event))) {
      this.#chain(runId, order, () => events);
      return;
    }
    for (const event of events) this.#deliverNow(order, event);
    this.#forgetIfIdle(runId);
  }

  #chain(runId: string, order: RunOrder, produce: () => Produced): void {
    const turn = async () => {
      try {
        for (const event of toList(await produce())) await this.#deliver(order, event);
      } catch (error) {
        this.#onError(error);
      }
    };
    const tail: Promise<void> = (order.tail ?? Promise.resolve()).then(turn).finally(() => {
      if (order.tail === tail) {
        order.tail = null;
        this.#forgetIfIdle(runId);
      }
    });
    order.tail = tail;
  }

  #order(runId: string): RunOrder {
    let order = this.#orders.get(runId);
    if (!order) {
      order = { revision: null, tail: null };
      this.#orders.set(runId, order);
    }
    return order;
  }

  #forgetIfIdle(runId: string): void {
    const order = this.#orders.get(runId);
    if (
      order &&
      order.tail === null &&
      this.#hub.listenerCount(runId) === 0 &&
      this.#hub.liveDeltas(runId).length === 0
    ) {
      this.#orders.delete(runId);
    }
  }

  /** A durable event that skips revisions a subscriber has not seen needs the missing ones. */
  #needsGap(order: RunOrder, event: RunEvent): boolean {
    return (
      event.type !== 'run-delta' &&
      order.revision !== null &&
      event.revision > order.revision + 1 &&
      this.#hub.listenerCount(event.runId) > 0
    );
  }

  async #deliver(order: RunOrder, event: RunEvent): Promise<void> {
    if (event.type !== 'run-delta' && this.#needsGap(order, event)) {
      const missing = await this.#read(event.runId, order.revision!, event.revision - 1);
      for (const earlier of missing) this.#deliverNow(order, earlier);
    }
    this.#deliverNow(order, event);
  }

  #deliverNow(order: RunOrder, event: RunEvent): void {
    if (event.type !== 'run-delta') {
      if (order.revision !== null && event.revision <= order.revision) return; // a repeat
      order.revision = event.revision;
    }
    this.#hub.publish(event);
  }

  #pointer(pointer: DurablePointer): readonly RunEvent[] | Promise<readonly RunEvent[]> {
    const order = this.#order(pointer.runId);
    if (order.revision !== null && pointer.revision <= order.revision) return [];
    if (this.#hub.listenerCount(pointer.runId) === 0) {
      order.revision = pointer.revision;
      // As `RunEventHub`: a checkpoint holds every delta before it; an ended run streams no more.
      if (
        pointer.type === 'assistant-checkpoint' ||
        pointer.type === 'assistant-append' ||
        (pointer.type === 'run-status' &&
          (pointer.change === 'completed' ||
            pointer.change === 'failed' ||
            pointer.change === 'cancelled'))
      ) {
        this.#hub.endRun(pointer.runId);
      }
      return [];
    }
    const after = order.revision ?? pointer.revision - 1;
    return this.#read(pointer.runId, after, pointer.revision).then((events) => {
      if (events.at(-1)?.revision !== pointer.revision) {
        // Committed before it was announced, so it must be there — unless the processes do
        // not share the store.
        this.#onError(this.#missingEvent(pointer.runId, pointer.revision));
      }
      return events;
    });
  }
}
