import type { Activity, ActivityKind } from '@runlight/client';
import type { FailureCode } from '@runlight/protocol';

/** Every text the status components show; override any of them for another language. */
export interface RunStatusLabels {
  readonly activity: Readonly<Record<ActivityKind, string>>;
  /** Failure codes as people read them; never provider text (the protocol carries none). */
  readonly failure: Readonly<Record<FailureCode, string>>;
  /** Shown when the run's state could not be loaded at all. */
  readonly error: string;
}

/** Partial labels, merged over `defaultRunStatusLabels`. */
export interface RunStatusLabelsInput {
  activity?: Partial<Record<ActivityKind, string>>;
  failure?: Partial<Record<FailureCode, string>>;
  error?: string;
}

export const defaultRunStatusLabels: RunStatusLabels = {
  activity: {
    loading: 'Loading…',
    queued: 'Queued',
    compacting: 'Compacting the context',
    'waiting-for-model': 'Waiting for the model',
    streaming: 'Writing the answer',
    'awaiting-approval': 'Waiting for your approval',
    working: 'Working',
    stalled: 'The worker stopped responding — recovering',
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
};

/**
 * Merges partial labels over the defaults.
 *
 * @example
 * resolveRunStatusLabels({ activity: { streaming: 'Schreibt…' } }).activity.streaming; // 'Schreibt…'
 */
export function resolveRunStatusLabels(input?: RunStatusLabelsInput): RunStatusLabels {
  if (input === undefined) return defaultRunStatusLabels;
  return {
    activity: { ...defaultRunStatusLabels.activity, ...input.activity },
    failure: { ...defaultRunStatusLabels.failure, ...input.failure },
    error: input.error ?? defaultRunStatusLabels.error,
  };
}

/** The words for an activity: a label and, for a failure, who owned it. */
export interface ActivityDescription {
  readonly label: string;
  readonly detail: string | undefined;
}

/**
 * Describes an activity with `labels`; an unknown kind or failure code (a newer server) falls
 * back to a generic label rather than showing nothing.
 *
 * @example
 * describeActivity({ kind: 'failed', failure: { code: 'ownership_lost' } }, defaultRunStatusLabels);
 * // { label: 'Failed', detail: 'Another worker took over' }
 */
export function describeActivity(
  activity: Activity,
  labels: RunStatusLabels = defaultRunStatusLabels,
): ActivityDescription {
  const label = labels.activity[activity.kind] ?? labels.activity.working;
  if (activity.kind !== 'failed') return { label, detail: undefined };
  const code = activity.failure?.code ?? 'internal';
  return { label, detail: labels.failure[code] ?? labels.failure.internal };
}
