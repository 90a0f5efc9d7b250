import type { DurableRunEvent, RunSnapshot } from '@runlight/protocol';
import { applyEvent } from './merge/apply-event';
import { mergeSnapshot } from './merge/merge-snapshot';
import { initialRunState, type RunState } from './merge/run-state';
import type { RunStore, RunStoreRecorder } from './run-store';

/** A snapshot the store merged (a first load, a gap or reset reload, a host cache's). */
export interface RunLogSnapshot {
  readonly kind: 'snapshot';
  readonly revision: number;
  /** Client wall clock (ms) when the store received it. */
  readonly receivedAt: number;
  /** UTF-8 bytes of its JSON. */
  readonly bytes: number;
  readonly snapshot: RunSnapshot;
  readonly clockOffsetMs: number | null;
}

/** A durable event the live connection received (duplicates included, in arrival order). */
export interface RunLogEvent {
  readonly kind: 'event';
  readonly revision: number;
  readonly type: DurableRunEvent['type'];
  readonly receivedAt: number;
  readonly bytes: number;
  readonly event: DurableRunEvent;
}

export type RunLogEntry = RunLogSnapshot | RunLogEvent;

/** What a `RunLog` holds; replaced (never mutated) on every change. */
export interface RunLogState {
  readonly runId: string;
  /** The durable state when recording began, plus every entry dropped since (see `RunLog`). */
  readonly base: RunState;
  /** What was received since, in arrival order (at most `maxEntries`, `maxBytes`). */
  readonly entries: readonly RunLogEntry[];
  /** UTF-8 bytes of the entries held. */
  readonly bytes: number;
  /** Live deltas merged since recording began: counted, never kept. */
  readonly deltas: number;
  /** Entries dropped to stay within the bounds (their effect is folded into `base`). */
  readonly dropped: number;
}

export interface RunLogLimits {
  /** Entries kept; older ones are folded into the base. Default 2,000. */
  maxEntries: number;
  /** UTF-8 bytes of the entries kept; older ones are folded into the base. Default 8 MiB. */
  maxBytes: number;
}

const DEFAULT_LIMITS: RunLogLimits = { maxEntries: 2_000, maxBytes: 8 * 1024 * 1024 };

const encoder = new TextEncoder();

/**
 * The durable log of one run as its store received it — every snapshot it merged and every
 * durable event of its connection, with size and arrival time — for developer tools. Live
 * deltas are only counted. Nothing is recorded until `runLogOf(store)` is first called, so an
 * app without devtools keeps nothing (and its bundle carries none of this module).
 *
 * Bounded: past `maxEntries` entries or `maxBytes` bytes the oldest are dropped and folded into
 * `base`, so the revisions still held stay exact while memory stays flat.
 *
 * `stateAt(n)` is the time machine: the pure reducer (`mergeSnapshot`, `applyEvent`) over the
 * base and the entries up to revision `n` — the state a fresh client shows after loading the
 * snapshot at `n`, since a snapshot at `n` is the fold of the durable log to `n`.
 *
 * @example
 * const log = runLogOf(client.run('run-1'));
 * log.subscribe(() => draw(log.getState().entries));
 * const then = log.stateAt(12); // null when revision 12 never reached this client
 */
export class RunLog implements RunStoreRecorder {
  readonly runId: string;
  readonly #limits: RunLogLimits;
  readonly #now: () => number;
  #state: RunLogState;
  readonly #listeners = new Set<() => void>();
  #notifyScheduled = false;
  #revisions: { of: RunLogState; list: number[] } | null = null;

  constructor(
    current: RunState,
    options: { now?: () => number; limits?: Partial<RunLogLimits> } = {},
  ) {
    this.runId = current.runId;
    this.#now = options.now ?? Date.now;
    this.#limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.#state = {
      runId: current.runId,
      base: durableOf(current),
      entries: [],
      bytes: 0,
      deltas: 0,
      dropped: 0,
    };
  }

  getState = (): RunLogState => this.#state;

  subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  };

  /** Records a snapshot the store merged. */
  snapshot(snapshot: RunSnapshot, clockOffsetMs: number | null): void {
    this.#append({
      kind: 'snapshot',
      revision: snapshot.revision,
      receivedAt: this.#now(),
      bytes: sizeOf(snapshot),
      snapshot,
      clockOffsetMs,
    });
  }

  /** Records a durable event the connection received. */
  event(event: DurableRunEvent): void {
    this.#append({
      kind: 'event',
      revision: event.revision,
      type: event.type,
      receivedAt: this.#now(),
      bytes: sizeOf(event),
      event,
    });
  }

  /** Counts the live deltas a commit merged (the overlay's `seq` moved on its base). */
  committed(previous: RunState, next: RunState): void {
    const live = next.live;
    if (live === null || live === previous.live) return;
    const before = previous.live;
    const counted = before !== null && before.baseRevision === live.baseRevision ? before.seq : 0;
    if (live.seq <= counted) return;
    this.#set({ ...this.#state, deltas: this.#state.deltas + live.seq - counted });
  }

  /**
   * The revisions the log can show exactly, ascending: the base's and those of the entries the
   * fold reaches (a revision received beyond a gap no snapshot bridged at it is left out).
   */
  revisions(): number[] {
    const current = this.#state;
    if (this.#revisions?.of === current) return this.#revisions.list;
    const { base, entries } = current;
    const reached = new Set<number>();
    let state = base;
    if (base.run !== null) reached.add(base.revision);
    for (const entry of entries) {
      state = foldEntry(state, entry);
      if (state.run !== null) reached.add(state.revision);
    }
    // One fold in arrival order reaches nearly every revision; the rest (e.g. one drained in
    // the same step as a later one) are checked on their own.
    for (const entry of entries) {
      if (!reached.has(entry.revision) && this.stateAt(entry.revision) !== null) {
        reached.add(entry.revision);
      }
    }
    const list = [...reached]
      .filter((revision) => base.run === null || revision >= base.revision)
      .sort((a, b) => a - b);
    this.#revisions = { of: current, list };
    return list;
  }

  /**
   * The state a fresh client shows at `revision`: the base and every entry up to it, folded
   * with the client's pure reducer, without live deltas, held events or connection. `null`
   * when this client cannot know it (before the base, or a revision it never received).
   */
  stateAt(revision: number): RunState | null {
    const { base, entries } = this.#state;
    if (base.run !== null && revision < base.revision) return null;
    let state = base;
    for (const entry of entries) {
      if (entry.revision <= revision) state = foldEntry(state, entry);
    }
    return state.run !== null && state.revision === revision ? durableOf(state) : null;
  }

  #append(entry: RunLogEntry): void {
    const { maxEntries, maxBytes } = this.#limits;
    let { base, entries, bytes, dropped } = this.#state;
    entries = [...entries, entry];
    bytes += entry.bytes;
    let drop = 0;
    while (entries.length - drop > 1 && (entries.length - drop > maxEntries || bytes > maxBytes)) {
      const oldest = entries[drop]!;
      base = foldEntry(base, oldest);
      bytes -= oldest.bytes;
      drop++;
    }
    if (drop > 0) {
      // Events the base holds for a gap stay in its `pending`: the fold drains them when the
      // entries bridge the gap, as the store did.
      entries = entries.slice(drop);
      dropped += drop;
    }
    this.#set({ ...this.#state, base, entries, bytes, dropped });
  }

  #set(next: RunLogState): void {
    this.#state = next;
    if (this.#notifyScheduled) return;
    this.#notifyScheduled = true;
    queueMicrotask(() => {
      this.#notifyScheduled = false;
      for (const listener of [...this.#listeners]) listener();
    });
  }
}

/**
 * The durable log `store` keeps from the first call on (idempotent: `limits` apply then).
 *
 * @example
 * const log = runLogOf(client.run('run-1'));
 */
export function runLogOf(store: RunStore, limits?: Partial<RunLogLimits>): RunLog {
  return store.recorder((state, now) => {
    const log = new RunLog(state, { now, ...(limits === undefined ? {} : { limits }) });
    store.observeDurableEvents((event) => log.event(event));
    return log;
  });
}

/** The client's pure reducer over one entry. */
function foldEntry(state: RunState, entry: RunLogEntry): RunState {
  return entry.kind === 'snapshot'
    ? mergeSnapshot(state, entry.snapshot, { clockOffsetMs: entry.clockOffsetMs })
    : applyEvent(state, entry.event);
}

/** The durable part of a state, as a fresh client holds it after a snapshot at its revision. */
function durableOf(state: RunState): RunState {
  return {
    ...initialRunState(state.runId),
    phase: state.run === null ? 'loading' : 'synced',
    run: state.run,
    assistant: state.assistant,
    revision: state.revision,
    clockOffsetMs: state.clockOffsetMs,
  };
}

function sizeOf(value: unknown): number {
  return encoder.encode(JSON.stringify(value)).length;
}
