import type {
  AgentRun,
  AssistantCheckpoint,
  FailureCode,
  RunFailure,
  RunOperation,
} from '@runlight/protocol';
import type { RunState } from './run-state';
import { selectElapsedMs } from './select-elapsed-ms';

/**
 * What a run is doing, derived only from durable facts:
 * - `loading` — no snapshot yet;
 * - `queued` — the run exists but no worker acquired it yet;
 * - `compacting` — a compaction operation is in flight (since its `startedAt`);
 * - `waiting-for-model` — a model request `started`, no output yet (since its `startedAt`);
 *   also between a failed attempt the AI SDK retries (`willRetry`) and its next attempt, and
 *   during a retry attempt — counted from the first attempt (`requestStartedAt ?? startedAt`),
 *   with the `attempt` being waited for;
 * - `streaming` — the model request reached `first-output` (since its `firstOutputAt`);
 * - `awaiting-approval` — running, no operation in flight, a tool part of the checkpoint is
 *   `approval-requested` (since the last operation's `endedAt`);
 * - `working` — running, no operation in flight: prompt projection, tool execution (since the
 *   last operation's `endedAt`, when there was one);
 * - `completed`, `failed` (with `failure`), `cancelled`.
 */
export type ActivityKind =
  | 'loading'
  | 'queued'
  | 'compacting'
  | 'waiting-for-model'
  | 'streaming'
  | 'awaiting-approval'
  | 'working'
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
  /** Only when `now` was passed: elapsed ms since `since` on the estimated server clock. */
  readonly elapsedMs?: number;
}

const LOADING: Activity = Object.freeze({ kind: 'loading' });

/** Results per run record: a text delta changes neither, so activity keeps its reference. */
const cache = new WeakMap<
  AgentRun,
  { assistant: AssistantCheckpoint | null; activity: Activity }
>();

/**
 * The activity of the run. Returns the same object while the run record and the checkpoint are
 * unchanged, so a component showing activity does not re-render on text deltas. Pass `now` to
 * get `elapsedMs` as well (then a new object whenever the elapsed time changes).
 *
 * @example
 * const { kind, since } = selectActivity(store.getState()); // e.g. 'waiting-for-model', startedAt
 */
export function selectActivity(state: RunState, now?: number): Activity {
  const { run } = state;
  if (run === null) return LOADING;
  let entry = cache.get(run);
  if (entry === undefined || entry.assistant !== state.assistant) {
    entry = { assistant: state.assistant, activity: deriveActivity(run, state.assistant) };
    cache.set(run, entry);
  }
  const activity = entry.activity;
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
  const kind = awaitsApproval(assistant) ? 'awaiting-approval' : 'working';
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

function awaitsApproval(assistant: AssistantCheckpoint | null): boolean {
  if (assistant === null) return false;
  return assistant.message.parts.some(
    (part) => 'state' in part && part.state === 'approval-requested',
  );
}

function failure(code: FailureCode): RunFailure {
  return { code };
}
