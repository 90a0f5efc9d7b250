import {
  type AgentRun,
  type DurableRunEvent,
  isTerminalStatus,
  type RunDeltaEvent,
  type RunEvent,
} from '@runlight/protocol';
import { applyChunks } from './apply-chunks';
import type { LiveOverlay, RunState } from './run-state';

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
  if (state.run === null || event.revision > state.revision + 1 || !fits(state, event)) {
    return hold(state, event);
  }
  return drainPending(reduceDurable(state, event));
}

/**
 * Rule 2.6: an append extends exactly the assistant write at its `baseRevision`. One that does
 * not fit the held message (never from a consistent server) is held like a gap: the snapshot
 * reload replaces the message.
 */
function fits(state: RunState, event: DurableRunEvent): boolean {
  if (event.type !== 'assistant-append') return true;
  const held = state.assistant;
  return (
    event.baseRevision === (held?.revision ?? 0) &&
    (held === null || held.message.id === event.messageId)
  );
}

/** Rule 3: a delta extends the overlay only on its base checkpoint and as the next `seq`. */
function applyDelta(state: RunState, event: RunDeltaEvent): RunState {
  const { run, live } = state;
  if (run === null || isTerminalStatus(run.status)) return state;
  const base = state.assistant?.revision ?? 0;
  if (event.baseRevision !== base) return state;
  // Rule 3.5: a delta of another acquisition is another owner's (a previous one, paused not
  // dead, publishing on after the takeover).
  if (event.fencingToken !== undefined && event.fencingToken !== run.fencingToken) return state;
  const seq = live === null ? 0 : live.seq;
  if (event.seq !== seq + 1) return state;
  let chunks = live === null ? [] : live.chunks;
  // Another state already extended the shared array past our view: branch off a copy.
  if (chunks.length !== seq) chunks = chunks.slice(0, seq);
  chunks.push(event.chunk);
  return nextState(state, run, state.assistant, { baseRevision: base, seq: event.seq, chunks });
}

/** Holds a gap event: O(log n) (`HeldEvents`), a second copy of a revision changes nothing. */
function hold(state: RunState, event: DurableRunEvent): RunState {
  const phase = state.run === null ? 'loading' : 'gap';
  const pending = state.pending.insert(event);
  if (pending === state.pending) return state.phase === phase ? state : { ...state, phase };
  return withPending(state, pending, phase);
}

/** `state` with other held events and phase (field by field: see the note below). */
function withPending(state: RunState, pending: RunState['pending'], phase: RunState['phase']) {
  return {
    runId: state.runId,
    phase,
    run: state.run,
    assistant: state.assistant,
    revision: state.revision,
    live: state.live,
    pending,
    clockOffsetMs: state.clockOffsetMs,
    connection: state.connection,
    error: state.error,
  };
}

/**
 * Applies the durable event at exactly `state.revision + 1` to a loaded state. The event
 * reproduces the store's reducer: `updatedAt` is the event's `at`, `revision` its revision.
 */
function reduceDurable(state: RunState, event: DurableRunEvent): RunState {
  const run = state.run!;
  const revision = event.revision;
  switch (event.type) {
    case 'run-operation':
      return nextState(
        state,
        runWith(
          run,
          event,
          revision,
          event.at,
          event.operation,
          run.status,
          run.owner,
          run.fencingToken,
          run.failure,
        ),
        state.assistant,
        state.live,
      );
    case 'assistant-checkpoint':
      // A checkpoint contains every delta before it: the overlay on the older base is spent.
      return nextState(state, assistantWritten(run, event), event.checkpoint, null);
    case 'assistant-append': {
      const held = state.assistant;
      const base = held?.message ?? { id: event.messageId, role: 'assistant' as const, parts: [] };
      return nextState(
        state,
        assistantWritten(run, event),
        { message: applyChunks(base, event.chunks), revision },
        // The append holds every delta before it: the overlay on the older base is spent.
        null,
      );
    }
    case 'run-status': {
      const next = runWith(
        run,
        event,
        revision,
        event.at,
        run.lastOperation,
        event.status,
        event.owner,
        event.fencingToken,
        event.failure,
        // The record's planned hand-off after the change travels on the event (absent: none).
        event.handOff,
      );
      // A terminal run streams no more; what it said is in its last checkpoint. An acquisition
      // (a takeover, a resume) ends the overlay too: its deltas were the previous owner's,
      // never made durable — the page falls back to the checkpoint (rule 3.5).
      return nextState(
        state,
        next,
        state.assistant,
        isTerminalStatus(next.status) || event.change === 'acquired' ? null : state.live,
      );
    }
  }
}

/*
 * The hot path builds objects field by field instead of spreading: V8 allocates a literal of a
 * known shape inline, while a spread of a ten-field object was ~40× slower in the benchmark.
 * The property test compares every field with the store's record, so a field added to the
 * protocol and forgotten here fails it.
 */

/** The run after an assistant write: only its revision, `updatedAt` and lease move. */
function assistantWritten(
  run: AgentRun,
  event: { revision: number; at: string; leaseExpiresAt?: string | null | undefined },
): AgentRun {
  return runWith(
    run,
    event,
    event.revision,
    event.at,
    run.lastOperation,
    run.status,
    run.owner,
    run.fencingToken,
    run.failure,
  );
}

function runWith(
  run: AgentRun,
  event: { leaseExpiresAt?: string | null | undefined },
  revision: number,
  updatedAt: string,
  lastOperation: AgentRun['lastOperation'],
  status: AgentRun['status'],
  owner: AgentRun['owner'],
  fencingToken: number,
  failure: AgentRun['failure'],
  handOff: AgentRun['handOff'] = run.handOff,
): AgentRun {
  const next: AgentRun = {
    id: run.id,
    status,
    owner,
    fencingToken,
    revision,
    lastOperation,
    failure,
    // Events written before the lease was public carry none: keep what the client knew.
    leaseExpiresAt: event.leaseExpiresAt === undefined ? run.leaseExpiresAt : event.leaseExpiresAt,
    createdAt: run.createdAt,
    updatedAt,
    // A fact of the run's creation (its trace, when telemetry is on): no later event changes it.
    ...(run.trace ? { trace: run.trace } : {}),
  };
  if (handOff !== undefined) next.handOff = handOff;
  return next;
}

function nextState(
  state: RunState,
  run: AgentRun,
  assistant: RunState['assistant'],
  live: LiveOverlay | null,
): RunState {
  return {
    runId: state.runId,
    phase: state.phase,
    run,
    assistant,
    revision: run.revision,
    live,
    pending: state.pending,
    clockOffsetMs: state.clockOffsetMs,
    connection: state.connection,
    error: state.error,
  };
}

/**
 * Drops held events the state already covers, applies those that now fit and sets the phase.
 * Shared by `applyEvent` and `mergeSnapshot` (after a reload bridged a gap).
 */
export function drainPending(state: RunState): RunState {
  if (state.pending.length === 0 && state.phase === 'synced') return state;
  let next = state;
  for (let first = next.pending.min; first !== undefined && first.revision <= next.revision + 1; ) {
    if (first.revision === next.revision + 1 && !fits(next, first)) break;
    const without = withPending(next, next.pending.withoutMin(), next.phase);
    next = first.revision === next.revision + 1 ? reduceDurable(without, first) : without;
    first = next.pending.min;
  }
  const phase = next.run === null ? 'loading' : next.pending.size > 0 ? 'gap' : 'synced';
  return next.phase === phase ? next : { ...next, phase };
}
