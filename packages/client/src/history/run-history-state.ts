import type { DurableRunEvent, RunOperationEvent, RunOperationsPage } from '@runlight/protocol';
import type { RunlightClientError } from '../errors/runlight-client-error';

/** Revisions known exactly, as sorted, disjoint, non-adjacent inclusive ranges `[from, to]`. */
export type CoveredRevisions = readonly (readonly [number, number])[];

/**
 * The operation history of one run as the client holds it (SPEC.md "History"). Replaced, never
 * mutated; a merge that adds nothing returns the same object.
 */
export interface RunHistoryState {
  readonly runId: string;
  /** Every `run-operation` event known, once each, in revision order. */
  readonly operations: readonly RunOperationEvent[];
  /** Which revisions are known exactly (from history pages and live durable events). */
  readonly covered: CoveredRevisions;
  /** `idle` until first asked; `loading` while pages are read; `error` after a failed read. */
  readonly status: 'idle' | 'loading' | 'ready' | 'error';
  readonly error: RunlightClientError | null;
}

/**
 * The history of a run nothing is known about yet.
 *
 * @example
 * const history = initialHistoryState('run-1'); // no operations, nothing covered
 */
export function initialHistoryState(runId: string): RunHistoryState {
  return { runId, operations: [], covered: [], status: 'idle', error: null };
}

/**
 * The highest revision `R` such that every revision `1..R` is known: the history holds every
 * operation up to `R` (0: nothing).
 *
 * @example
 * completeThrough(state) >= storeRevision // the history is complete for what the store holds
 */
export function completeThrough(state: RunHistoryState): number {
  const first = state.covered[0];
  return first !== undefined && first[0] <= 1 ? first[1] : 0;
}

/** `covered` plus `[from, to]`, merged; the same array when nothing new is covered. */
function cover(covered: CoveredRevisions, from: number, to: number): CoveredRevisions {
  if (to < from) return covered;
  if (covered.some(([a, b]) => a <= from && to <= b)) return covered;
  const next: [number, number][] = [];
  let lo = from;
  let hi = to;
  let placed = false;
  for (const [a, b] of covered) {
    if (b < lo - 1) next.push([a, b]);
    else if (a > hi + 1) {
      if (!placed) {
        next.push([lo, hi]);
        placed = true;
      }
      next.push([a, b]);
    } else {
      lo = Math.min(lo, a);
      hi = Math.max(hi, b);
    }
  }
  if (!placed) next.push([lo, hi]);
  return next;
}

/** Sorted union of two revision-sorted operation lists; `existing` itself when nothing is new. */
function union(
  existing: readonly RunOperationEvent[],
  incoming: readonly RunOperationEvent[],
): readonly RunOperationEvent[] {
  if (incoming.length === 0) return existing;
  const last = existing.at(-1)?.revision ?? 0;
  // The common cases: appending live events or a later page.
  if ((incoming[0]?.revision ?? 0) > last && isSorted(incoming)) return [...existing, ...incoming];
  const merged: RunOperationEvent[] = [];
  let i = 0;
  let j = 0;
  const sorted = isSorted(incoming)
    ? incoming
    : [...incoming].sort((a, b) => a.revision - b.revision);
  let added = false;
  while (i < existing.length || j < sorted.length) {
    const a = existing[i];
    const b = sorted[j];
    if (b === undefined || (a !== undefined && a.revision < b.revision)) {
      merged.push(a!);
      i++;
    } else if (a === undefined || b.revision < a.revision) {
      if (merged.at(-1)?.revision !== b.revision) {
        merged.push(b);
        added = true;
      }
      j++;
    } else {
      // The same revision is the same fact: keep the one held.
      merged.push(a);
      i++;
      j++;
    }
  }
  return added ? merged : existing;
}

function isSorted(events: readonly RunOperationEvent[]): boolean {
  for (let index = 1; index < events.length; index++) {
    if (events[index]!.revision <= events[index - 1]!.revision) return false;
  }
  return true;
}

/** Adds operation events known to be every one in revisions `[from, to]` (H1, H2). */
function merge(
  state: RunHistoryState,
  events: readonly RunOperationEvent[],
  from: number,
  to: number,
): RunHistoryState {
  const own = events.filter((event) => event.runId === state.runId);
  const operations = union(state.operations, own);
  const covered = cover(state.covered, from, to);
  if (operations === state.operations && covered === state.covered) return state;
  return { ...state, operations, covered };
}

/**
 * Merges one page read with `after` (H1): its operations, and the revisions
 * `(after, nextAfter ?? revision]` it covers. A page of another run changes nothing.
 *
 * @example
 * state = mergeHistoryPage(state, page, 0);
 */
export function mergeHistoryPage(
  state: RunHistoryState,
  page: RunOperationsPage,
  after: number,
): RunHistoryState {
  if (page.runId !== state.runId) return state;
  return merge(state, page.operations, after + 1, page.nextAfter ?? page.revision);
}

/**
 * Merges one durable event the run's store received live (H2): it covers its own revision, and
 * a `run-operation` event is added. A revision already covered returns the same state.
 *
 * @example
 * state = mergeLiveEvent(state, event);
 */
export function mergeLiveEvent(state: RunHistoryState, event: DurableRunEvent): RunHistoryState {
  if (event.runId !== state.runId) return state;
  return merge(
    state,
    event.type === 'run-operation' ? [event] : [],
    event.revision,
    event.revision,
  );
}

/**
 * The `after` of the next page to read so the history covers `revision` (the store's), or
 * `null` when nothing is missing (H3): the first revision not known, minus one.
 *
 * @example
 * const after = nextHistoryAfter(state, store.getState().revision); // 0: read from the start
 */
export function nextHistoryAfter(state: RunHistoryState, revision: number): number | null {
  const through = completeThrough(state);
  return through >= revision ? null : through;
}
