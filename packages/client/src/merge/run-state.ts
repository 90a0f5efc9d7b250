import type { AgentRun, AssistantCheckpoint, UIMessageChunk } from '@runlight/protocol';
import type { RunlightClientError } from '../errors/runlight-client-error';
import { HeldEvents } from './held-events';

/**
 * The live connection of a run store:
 *
 * ```
 *  idle ──connect──► connecting ──open──► live ──server ends, run terminal──► closed
 *                        ▲                 │
 *                        │           drop / error / reset
 *                        │                 ▼
 *                        └──backoff── reconnecting ──navigator.onLine=false──► offline
 *
 *  connecting / reconnecting ──a snapshot load that cannot reach the server, or attempts
 *        unanswered for unreachableAfterMs (3 s) / unreachableAfterAttempts (3)──► unreachable
 *  unreachable ──the server answers again──► connecting / live
 *  connecting / live / reconnecting ──a request of this client unanswered for waitingAfterMs
 *        (1 s)──► waiting ──every such request answered──► back
 *
 *  401 / 403 ──► unauthorized ──retry() (or a slow retry with fresh headers)──► connecting
 * ```
 *
 * `unreachable`: the browser is online but the server does not answer ("Cannot reach the
 * server"); the run's facts shown are the last known, as of `RunState.lastHeardAt`.
 * `waiting`: a request of this client (a snapshot load, the event stream, a cancel) has had no
 * answer from the browser — e.g. queued behind its six connections per host — so the state is
 * never `live` while something the user asked for hangs. `disconnect()` (or the last
 * subscriber leaving) returns to `idle` from any state; `retry()` reopens `closed` after an
 * error (e.g. a run not found).
 */
export type ConnectionState =
  | 'idle'
  | 'connecting'
  | 'live'
  | 'waiting'
  | 'reconnecting'
  | 'unreachable'
  | 'offline'
  | 'unauthorized'
  | 'closed';

/**
 * Where the merged state stands against the server's causal clock (SPEC.md "Phases"):
 * `loading` — no snapshot yet; `synced` — every durable event up to `revision` is applied;
 * `gap` — a durable event beyond `revision + 1` is held and a snapshot reload is needed.
 */
export type SyncPhase = 'loading' | 'synced' | 'gap';

/**
 * The live deltas merged on top of the assistant checkpoint at `baseRevision` (0: none yet).
 *
 * `chunks` is shared append-only between successive states of one stream: a state sees only
 * its first `seq` entries. Appending a delta is therefore O(1) and never copies the message;
 * `selectMessage` materialises the overlay lazily (and incrementally).
 */
export interface LiveOverlay {
  readonly baseRevision: number;
  readonly seq: number;
  readonly chunks: UIMessageChunk[];
}

/** The client's merged view of one run. Every field is replaced, never mutated. */
export interface RunState {
  readonly runId: string;
  readonly phase: SyncPhase;
  /** The durable run record, `null` until the first snapshot. */
  readonly run: AgentRun | null;
  /** The durable assistant checkpoint (replaced on every checkpoint event). */
  readonly assistant: AssistantCheckpoint | null;
  /** The highest durable revision held with nothing missing before it (0: none). */
  readonly revision: number;
  /** Live deltas on top of `assistant`, or `null`. */
  readonly live: LiveOverlay | null;
  /**
   * Durable events beyond `revision + 1`, held until a snapshot bridges the gap (by revision;
   * O(log n) insertion, bounded by the store's `maxHeldEvents`).
   */
  readonly pending: HeldEvents;
  /** Estimated `serverClock - clientClock` in ms, from snapshot `serverTime`; `null` if unknown. */
  readonly clockOffsetMs: number | null;
  readonly connection: ConnectionState;
  /**
   * While `connection` is `unreachable`: the client-clock time (ms) the server last answered
   * this store — what the run's facts are known as of. Absent otherwise.
   */
  readonly lastHeardAt?: number;
  /** The last bad input or transport failure; the rest of the state is the last good one. */
  readonly error: RunlightClientError | null;
}

/**
 * The state of a run nothing is known about yet.
 *
 * @example
 * const state = initialRunState('run-1'); // phase 'loading', connection 'idle'
 */
export function initialRunState(runId: string): RunState {
  return {
    runId,
    phase: 'loading',
    run: null,
    assistant: null,
    revision: 0,
    live: null,
    pending: HeldEvents.empty,
    clockOffsetMs: null,
    connection: 'idle',
    error: null,
  };
}
