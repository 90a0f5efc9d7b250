import type { FailureCode } from '@runlight/protocol';
import type { Activity, ActivityKind } from '../select/select-activity';

/**
 * Every text the status components and the timeline show for a moment of a run; override any
 * of them for another language. `@runlight/react`'s `RunStatus`, `OperationIndicator` and
 * `RunTimeline` take their words from here — as any other binding should — so the same moment
 * reads the same in all of them.
 *
 * Attempts are counted the way the records count them: one-based, per model request — the first
 * try is attempt 1, the AI SDK's first retry attempt 2 ("attempt 2 of the request").
 */
export interface RunStatusLabels {
  readonly activity: Readonly<Record<ActivityKind, string>>;
  /** Failure codes as people read them; never provider text (the protocol carries none). */
  readonly failure: Readonly<Record<FailureCode, string>>;
  /** Shown when the run's state could not be loaded at all (bad data, a server error). */
  readonly error: string;
  /**
   * Shown when the server refused access to the run (401 / 403): sign in again, or the run is
   * not yours. Default `Access to this run was refused`.
   */
  readonly accessRefused: string;
  /**
   * Shown when the server answers that the run does not exist, for good (past the client's
   * `notFoundRetryMs`). Default `This run does not exist`.
   */
  readonly notFound: string;
  /**
   * Shown when the page cannot reach the server (connection `unreachable`): a failed snapshot
   * load, or a stream that could not reconnect past the client's threshold. Default
   * `Cannot reach the server`.
   */
  readonly unreachable: string;
  /**
   * The run's last known status beside `unreachable`, so it is never shown as current. Default
   * `Last known: Waiting for the model`.
   */
  readonly lastKnown: (status: string) => string;
  /**
   * Shown instead of `activity.loading` while the browser has not answered the page's request
   * for the run (connection `waiting`, e.g. queued behind its connection limit). Default
   * `Waiting for a connection`.
   */
  readonly waitingForConnection: string;
  /**
   * `stalled` where something recovers the run (`recovers`: the deployment runs
   * `createRunRecovery` or another worker takes expired leases over). Without `recovers` a
   * stalled run reads `activity.stalled`, which claims no recovery. Default
   * `The worker stopped responding — recovering`.
   */
  readonly stalledRecovering: string;
  /**
   * The moment another worker received a run handed over on a planned shutdown (a deploy): a
   * hand-off, not a takeover. Default `Another worker continued the run`.
   */
  readonly handedOver: string;
  /** The one-based attempt of a model request. Default `attempt 2 of the request`. */
  readonly attempt: (attempt: number) => string;
  /**
   * `waiting-for-model` during a retry attempt that has no output yet (`attempt` ≥ 2). Default
   * `Waiting for the model (attempt 2 of the request)`.
   */
  readonly waitingForAttempt: (attempt: number) => string;
  /**
   * `waiting-for-model` between a failed attempt the AI SDK retries and the next one, which is
   * `attempt`. Default `Waiting to retry the model (attempt 2 of the request)`.
   */
  readonly retryWait: (attempt: number, maxAttempts?: number) => string;
  /**
   * The timeline's retry wait once it is over (the next attempt began): past tense, so a
   * finished run never reads as still waiting. Default
   * `Waited to retry the model (attempt 2 of the request)`.
   */
  readonly retryWaited: (attempt: number) => string;
  /**
   * A retry's time since the request's first attempt began — what the status counts — beside
   * the attempt's own total in the timeline. `duration` is already formatted. Default
   * `4.0 s since attempt 1 began`.
   */
  readonly sinceFirstAttempt: (duration: string) => string;
  /**
   * The visible countdown to a retry whose time the record carries (`retryAt`): whole seconds
   * left, the attempt it waits for and, when known, the attempts in all. Not announced (it
   * ticks); screen readers hear `retryWait` once. Default `Retrying in 3 s (attempt 2 of 3)`.
   */
  readonly retryCountdown: (seconds: number, attempt: number, maxAttempts?: number) => string;
}

/** Partial labels, merged over `defaultRunStatusLabels`. */
export interface RunStatusLabelsInput {
  activity?: Partial<Record<ActivityKind, string>>;
  failure?: Partial<Record<FailureCode, string>>;
  error?: string;
  accessRefused?: string;
  notFound?: string;
  unreachable?: string;
  lastKnown?: (status: string) => string;
  waitingForConnection?: string;
  stalledRecovering?: string;
  handedOver?: string;
  attempt?: (attempt: number) => string;
  waitingForAttempt?: (attempt: number) => string;
  retryWait?: (attempt: number, maxAttempts?: number) => string;
  retryWaited?: (attempt: number) => string;
  sinceFirstAttempt?: (duration: string) => string;
  retryCountdown?: (seconds: number, attempt: number, maxAttempts?: number) => string;
}

const attempt = (number: number, maxAttempts?: number) =>
  `attempt ${number} of ${maxAttempts === undefined ? 'the request' : maxAttempts}`;

export const defaultRunStatusLabels: RunStatusLabels = {
  activity: {
    loading: 'Loading…',
    'not-created': 'Waiting for the run to start',
    queued: 'Queued',
    compacting: 'Compacting the context',
    'waiting-for-model': 'Waiting for the model',
    streaming: 'Writing the answer',
    'awaiting-approval': 'Waiting for your approval',
    working: 'Working',
    stalled: 'The worker stopped responding',
    'handing-off': 'Handing over to another worker',
    completed: 'Completed',
    failed: 'Failed',
    cancelled: 'Cancelled',
  },
  failure: {
    provider_failure: 'The model provider failed',
    storage_conflict: 'Storage conflict',
    tool_failure: 'A tool failed',
    compaction_failure: 'Compacting the context failed',
    ownership_lost: 'Another worker took over',
    storage_unavailable: 'The run store was unavailable',
    internal: 'Internal error',
  },
  error: 'The run status could not be loaded',
  accessRefused: 'Access to this run was refused',
  notFound: 'This run does not exist',
  unreachable: 'Cannot reach the server',
  lastKnown: (status) => `Last known: ${status}`,
  waitingForConnection: 'Waiting for a connection',
  stalledRecovering: 'The worker stopped responding — recovering',
  handedOver: 'Another worker continued the run',
  attempt,
  waitingForAttempt: (number) => `Waiting for the model (${attempt(number)})`,
  retryWait: (number, maxAttempts) =>
    `Waiting to retry the model (${attempt(number, maxAttempts)})`,
  retryWaited: (number) => `Waited to retry the model (${attempt(number)})`,
  sinceFirstAttempt: (duration) => `${duration} since attempt 1 began`,
  retryCountdown: (seconds, number, maxAttempts) =>
    `${seconds > 0 ? `Retrying in ${seconds} s` : 'Retrying now'} (${attempt(number, maxAttempts)})`,
};

/**
 * Merges partial labels over the defaults.
 *
 * @example
 * resolveRunStatusLabels({ activity: { streaming: 'Schreibt…' } }).activity.streaming; // 'Schreibt…'
 */
export function resolveRunStatusLabels(input?: RunStatusLabelsInput): RunStatusLabels {
  if (input === undefined) return defaultRunStatusLabels;
  const defaults = defaultRunStatusLabels;
  return {
    activity: { ...defaults.activity, ...input.activity },
    failure: { ...defaults.failure, ...input.failure },
    error: input.error ?? defaults.error,
    accessRefused: input.accessRefused ?? defaults.accessRefused,
    notFound: input.notFound ?? defaults.notFound,
    unreachable: input.unreachable ?? defaults.unreachable,
    lastKnown: input.lastKnown ?? defaults.lastKnown,
    waitingForConnection: input.waitingForConnection ?? defaults.waitingForConnection,
    stalledRecovering: input.stalledRecovering ?? defaults.stalledRecovering,
    handedOver: input.handedOver ?? defaults.handedOver,
    attempt: input.attempt ?? defaults.attempt,
    waitingForAttempt: input.waitingForAttempt ?? defaults.waitingForAttempt,
    retryWait: input.retryWait ?? defaults.retryWait,
    retryWaited: input.retryWaited ?? defaults.retryWaited,
    sinceFirstAttempt: input.sinceFirstAttempt ?? defaults.sinceFirstAttempt,
    retryCountdown: input.retryCountdown ?? defaults.retryCountdown,
  };
}

/** The words for an activity: a label and, for a failure, who owned it. */
export interface ActivityDescription {
  readonly label: string;
  readonly detail: string | undefined;
}

/** What the deployment does that the words depend on. */
export interface ActivityContext {
  /**
   * Whether anything recovers a stalled run (Runlight's `createRunRecovery`, or another worker
   * that takes expired leases over). Default false: a stalled run then reads
   * `The worker stopped responding`, never a recovery nothing will do.
   */
  readonly recovers?: boolean;
}

/**
 * Describes an activity with `labels`: a retry of the model request names the attempt it waits
 * for, and whether it waits for the retry to begin or for the retry's first output. An unknown
 * kind or failure code (a newer server) falls back to a generic label rather than nothing. A
 * stalled run claims recovery only with `context.recovers`.
 *
 * @example
 * describeActivity({ kind: 'failed', failure: { code: 'ownership_lost' } }, defaultRunStatusLabels);
 * // { label: 'Failed', detail: 'Another worker took over' }
 */
export function describeActivity(
  activity: Activity,
  labels: RunStatusLabels = defaultRunStatusLabels,
  context: ActivityContext = {},
): ActivityDescription {
  if (activity.kind === 'stalled' && context.recovers === true) {
    return { label: labels.stalledRecovering, detail: undefined };
  }
  if (activity.kind === 'waiting-for-model' && activity.attempt !== undefined) {
    if (activity.operation?.phase === 'failed') {
      const { maxAttempts } = activity.operation;
      return { label: labels.retryWait(activity.attempt, maxAttempts), detail: undefined };
    }
    if (activity.attempt >= 2) {
      return { label: labels.waitingForAttempt(activity.attempt), detail: undefined };
    }
  }
  const label = labels.activity[activity.kind] ?? labels.activity.working;
  if (activity.kind !== 'failed') return { label, detail: undefined };
  return { label, detail: describeFailure(activity.failure?.code, labels) };
}

/** A failure code in words; an unknown one (a newer server) reads as an internal error. */
export function describeFailure(code: FailureCode | undefined, labels: RunStatusLabels): string {
  return labels.failure[code ?? 'internal'] ?? labels.failure.internal;
}

/**
 * The accessible name of a status: the label, and the failure's owner after a colon —
 * `OperationIndicator`'s name and the failed row of `RunTimeline` read it the same way.
 *
 * @example
 * statusText({ label: 'Failed', detail: 'Storage conflict' });
 * // 'Failed: Storage conflict'
 */
export function statusText(description: ActivityDescription): string {
  return description.detail === undefined
    ? description.label
    : `${description.label}: ${description.detail}`;
}
