import {
  type DurableRunEvent,
  isTerminalStatus,
  type RunDeltaEvent,
  type RunEvent,
} from '@runlight/protocol';
import type { RunState } from './run-state';

/**
 * Merges one validated event into the state (SPEC.md rules 2 and 3). Pure: it never mutates
 * `state`, and an event that changes nothing returns the very same object, so a
 * `useSyncExternalStore` subscriber does not re-render on duplicates.
 *
 * @example
 * let state = mergeSnapshot(initialRunState('run-1'), snapshot);
 * state = applyEvent(state, event); // revision + 1 applies; ≤ revision is a duplicate; beyond holds a gap
 */
export function applyEvent(state: RunState, event: RunEvent): RunState {
  if (event.runId !== state.runId) return state;
  return event.type === 'run-delta' ? applyDelta(state, event) : applyDurable(state, event);
}

/** Rule 2: duplicate ≤ revision, apply = revision + 1, hold and flag a gap beyond. */
function applyDurable(state: RunState, event: DurableRunEvent): RunState {
  if (event.revision <= state.revision) return state;
  if (state.run === null || event.revision > state.revision + 1) return hold(state, event);
  return drainPending(reduceDurable(state, event));
}

/** Rule 3: a delta extends the overlay only on its base checkpoint and as the next `seq`. */
function applyDelta(state: RunState, event: RunDeltaEvent): RunState {
  const { run, live } = state;
  if (run === null || isTerminalStatus(run.status)) return state;
  const base = state.assistant?.revision ?? 0;
  if (event.baseRevision !== base) return state;
  const seq = live === null ? 0 : live.seq;
  if (event.seq !== seq + 1) return state;
  let chunks = live === null ? [] : live.chunks;
  // Another state already extended the shared array past our view: branch off a copy.
  if (chunks.length !== seq) chunks = chunks.slice(0, seq);
  chunks.push(event.chunk);
  return { ...state, live: { baseRevision: base, seq: event.seq, chunks } };
}

function hold(state: RunState, event: DurableRunEvent): RunState {
  const { pending } = state;
  const phase = state.run === null ? 'loading' : 'gap';
  if (pending.some((held) => held.revision === event.revision)) {
    return state.phase === phase ? state : { ...state, phase };
  }
  const index = pending.findIndex((held) => held.revision > event.revision);
  const next =
    index === -1
      ? [...pending, event]
      : [...pending.slice(0, index), event, ...pending.slice(index)];
  return { ...state, pending: next, phase };
}

/**
 * Applies the durable event at exactly `state.revision + 1` to a loaded state. The event
 * reproduces the store's reducer: `updatedAt` is the event's `at`, `revision` its revision.
 */
function reduceDurable(state: RunState, event: DurableRunEvent): RunState {
  const run = state.run!;
  const stamp = { revision: event.revision, updatedAt: event.at };
  switch (event.type) {
    case 'run-operation':
      return {
        ...state,
        revision: event.revision,
        run: { ...run, ...stamp, lastOperation: event.operation },
      };
    case 'assistant-checkpoint':
      // A checkpoint contains every delta before it: the overlay on the older base is spent.
      return {
        ...state,
        revision: event.revision,
        run: { ...run, ...stamp },
        assistant: event.checkpoint,
        live: null,
      };
    case 'run-status': {
      const next = {
        ...run,
        ...stamp,
        status: event.status,
        owner: event.owner,
        fencingToken: event.fencingToken,
        failure: event.failure,
      };
      // A terminal run streams no more; what it said is in its last checkpoint.
      const live = isTerminalStatus(next.status) ? null : state.live;
      return { ...state, revision: event.revision, run: next, live };
    }
  }
}

/**
 * Drops held events the state already covers, applies those that now fit and sets the phase.
 * Shared by `applyEvent` and `mergeSnapshot` (after a reload bridged a gap).
 */
export function drainPending(state: RunState): RunState {
  let next = state;
  while (next.pending.length > 0 && next.pending[0]!.revision <= next.revision + 1) {
    const [first, ...rest] = next.pending;
    const without = { ...next, pending: rest };
    next = first!.revision === next.revision + 1 ? reduceDurable(without, first!) : without;
  }
  const phase = next.run === null ? 'loading' : next.pending.length > 0 ? 'gap' : 'synced';
  return next.phase === phase ? next : { ...next, phase };
}
