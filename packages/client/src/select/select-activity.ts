import {
  type AgentRun,
  type AssistantCheckpoint,
  type FailureCode,
  pendingApprovals,
  type RunFailure,
  type RunOperation,
} from '@runlight/protocol';
import type { RunState } from '../merge/run-state';
import { selectElapsedMs } from './select-elapsed-ms';

/**
 * What a run is doing, derived only from durable facts:
 * - `loading` — no snapshot yet;
 * - `not-created` — the server answers that the run does not exist (yet) and the client keeps
 *   asking: a run whose id a page learned before its start landed. Bounded by the client's
 *   `notFoundRetryMs` (default 30 s); past it the connection closes and the activity is
 *   `loading` with the `run-not-found` error (`@runlight/react`: "This run does not exist");
 * - `queued` — the run exists but no worker acquired it yet;
 * - `compacting` — a compaction operation is in flight (since its `startedAt`);
 * - `waiting-for-model` — a model request `started`, no output yet (since its `startedAt`);
 *   also between a failed attempt the AI SDK retries (`willRetry`) and its next attempt, and
 *   during a retry attempt — counted from the first attempt (`requestStartedAt ?? startedAt`),
 *   with the `attempt` being waited for;
 * - `streaming` — the model request reached `first-output` (since its `firstOutputAt`);
 * - `awaiting-approval` — running, no operation in flight, the checkpoint has a pending
 *   approval request (`pendingApprovals`; since the last operation's `endedAt`);
 * - `working` — running, no operation in flight: prompt projection, tool execution (since the
 *   last operation's `endedAt`, when there was one);
 * - `stalled` — running, but the owner's lease (`leaseExpiresAt`) has expired on the server
 *   clock as the client estimates it: the worker stopped responding and nobody writes; since
 *   the lease expiry, with the operation that was in flight and the activity it interrupted.
 *   It ends with the next owner's first event (an acquisition carries a later lease). A run
 *   awaiting approval holds no lease and is never stalled;
 * - `handing-off` — running, its owner handed the run over on a graceful shutdown (a deploy,
 *   `runtime.close()`: the record's `handOff`) and no other owner has received it yet; since the
 *   hand-off. A planned event, not a stall: the owner did not go silent, it said so;
 * - `completed`, `failed` (with `failure`), `cancelled`.
 */
export type ActivityKind =
  | 'loading'
  | 'not-created'
  | 'queued'
  | 'compacting'
  | 'waiting-for-model'
  | 'streaming'
  | 'awaiting-approval'
  | 'working'
  | 'stalled'
  | 'handing-off'
  | 'completed'
  | 'failed'
  | 'cancelled';

export interface Activity {
  readonly kind: ActivityKind;
  /** The original server timestamp the activity began at; never a receipt or connection time. */
  readonly since?: string;
  /** The run's `lastOperation` when there is one. */
  readonly operation?: RunOperation;
  /**
   * On `waiting-for-model` after a failed attempt: the one-based attempt being waited for (2 is
   * the first retry). Absent on a first attempt.
   */
  readonly attempt?: number;
  /** On `failed`: who owned the failure (never provider text). */
  readonly failure?: RunFailure;
  /** On `stalled`: what the run was doing when its owner went silent (never `stalled`). */
  readonly interrupted?: Activity;
  /** Only when `now` was passed: elapsed ms since `since` on the estimated server clock. */
  readonly elapsedMs?: number;
}

const LOADING: Activity = Object.freeze({ kind: 'loading' });
const NOT_CREATED: Activity = Object.freeze({ kind: 'not-created' });

/** Results per run record: a text delta changes neither, so activity keeps its reference. */
const cache = new WeakMap<
  AgentRun,
  { assistant: AssistantCheckpoint | null; activity: Activity; stalled?: Activity }
>();

/**
 * The activity of the run. Returns the same object while the run record and the checkpoint are
 * unchanged, so a component showing activity does not re-render on text deltas. Pass `now` to
 * get `elapsedMs` as well (then a new object whenever the elapsed time changes).
 *
 * Whether the run is `stalled` depends on the time: `now` (default `Date.now()`) corrected by
 * `state.clockOffsetMs`. A binding re-reads the activity when `selectLeaseExpiry` is reached
 * (`watchLeaseExpiry`), since nothing arrives at that moment.
 *
 * @example
 * const { kind, since } = selectActivity(store.getState()); // e.g. 'waiting-for-model', startedAt
 */
export function selectActivity(state: RunState, now?: number): Activity {
  const { run } = state;
  if (run === null) {
    const waiting = state.error?.kind === 'run-not-found' && state.connection !== 'closed';
    return waiting ? NOT_CREATED : LOADING;
  }
  const entry = entryOf(run, state.assistant);
  let activity = entry.activity;
  const expiry = stallAt(run, activity);
  if (expiry !== null && (now ?? Date.now()) + (state.clockOffsetMs ?? 0) >= expiry) {
    entry.stalled ??= {
      kind: 'stalled',
      since: run.leaseExpiresAt!,
      ...(activity.operation === undefined ? {} : { operation: activity.operation }),
      interrupted: activity,
    };
    activity = entry.stalled;
  }
  if (now === undefined || activity.since === undefined) return activity;
  const elapsedMs = selectElapsedMs(activity.since, state, now);
  const timed = elapsedCache.get(activity);
  if (timed?.elapsedMs === elapsedMs) return timed;
  const next = { ...activity, elapsedMs };
  elapsedCache.set(activity, next);
  return next;
}

/** The last timed copy per activity, so equal elapsed times return the same object. */
const elapsedCache = new WeakMap<Activity, Activity>();

function entryOf(run: AgentRun, assistant: AssistantCheckpoint | null) {
  let entry = cache.get(run);
  if (entry === undefined || entry.assistant !== assistant) {
    entry = { assistant, activity: deriveActivity(run, assistant) };
    cache.set(run, entry);
  }
  return entry;
}

/**
 * When the activity of `run` turns `stalled`, on the server clock (ms), or null when it never
 * does from here: not running, no lease (queued, paused for approvals, ended), or awaiting
 * approval (a legacy paused record may still carry its old lease).
 */
function stallAt(run: AgentRun, activity: Activity): number | null {
  if (run.status !== 'running' || run.leaseExpiresAt === null) return null;
  if (activity.kind === 'awaiting-approval' || activity.kind === 'handing-off') return null;
  const expiry = Date.parse(run.leaseExpiresAt);
  return Number.isNaN(expiry) ? null : expiry;
}

/**
 * The client-clock time (ms since the epoch) at which the run's activity turns `stalled` if no
 * new event arrives — the lease expiry minus the clock offset — or null when it cannot (no
 * lease, not running, awaiting approval). A past time means it is stalled already.
 *
 * @example
 * const at = selectLeaseExpiry(store.getState());
 * if (at !== null) setTimeout(rerender, Math.max(0, at - Date.now()));
 */
export function selectLeaseExpiry(state: RunState): number | null {
  const { run } = state;
  if (run === null) return null;
  const expiry = stallAt(run, entryOf(run, state.assistant).activity);
  return expiry === null ? null : expiry - (state.clockOffsetMs ?? 0);
}

function deriveActivity(run: AgentRun, assistant: AssistantCheckpoint | null): Activity {
  const operation = run.lastOperation ?? undefined;
  const withOperation = operation === undefined ? {} : { operation };
  switch (run.status) {
    case 'completed':
    case 'cancelled':
      return { kind: run.status, ...withOperation };
    case 'failed':
      return { kind: 'failed', ...withOperation, failure: run.failure ?? failure('internal') };
    case 'queued':
      return { kind: 'queued', ...withOperation };
    case 'running':
      break;
  }
  // The handed-off lease expired at once (so that recovery picks the run up on its next poll):
  // the record says why, and it is no stall.
  if (run.handOff !== undefined && run.handOff.to === undefined) {
    return { kind: 'handing-off', since: run.handOff.at, ...withOperation };
  }
  if (operation !== undefined) {
    if (operation.kind === 'model-request') {
      const retry = retryAttempt(operation);
      if (retry !== undefined) {
        const since = operation.requestStartedAt ?? operation.startedAt;
        return { kind: 'waiting-for-model', since, operation, attempt: retry };
      }
    }
    if (operation.phase === 'started') {
      const kind = operation.kind === 'compaction' ? 'compacting' : 'waiting-for-model';
      return { kind, since: operation.startedAt, operation };
    }
    if (operation.phase === 'first-output') {
      return {
        kind: 'streaming',
        since: operation.firstOutputAt ?? operation.startedAt,
        operation,
      };
    }
  }
  const since = operation?.endedAt === undefined ? {} : { since: operation.endedAt };
  const kind = pendingApprovals(assistant?.message).length > 0 ? 'awaiting-approval' : 'working';
  return { kind, ...since, ...withOperation };
}

/**
 * The attempt a running run waits for while the AI SDK retries: the next one after a failed
 * attempt that will be retried, or the current retry attempt that has no output yet.
 */
function retryAttempt(operation: RunOperation): number | undefined {
  const attempt = operation.attempt ?? 1;
  if (operation.phase === 'failed' && operation.willRetry === true) return attempt + 1;
  if (operation.phase === 'started' && attempt >= 2) return attempt;
  return undefined;
}

function failure(code: FailureCode): RunFailure {
  return { code };
}
