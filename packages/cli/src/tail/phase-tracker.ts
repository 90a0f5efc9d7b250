import {
  type Activity,
  defaultRunStatusLabels,
  describeActivity,
  type RunState,
  type RunStatusView,
  selectRunStatus,
  statusText,
} from '@runlight/client';
import type { DurableRunEvent, UIMessage } from '@runlight/protocol';
import { type AwaitedApproval, between, type TailRecord } from './tail-records';

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/**
 * Turns the states a run goes through into `tail`'s records: a `phase` record each time the
 * status would read differently (a new activity, a new `since`, another attempt), a `takeover`
 * when another owner acquires a run that had one. Pure apart from the clock `selectActivity`
 * reads for stalls; the words are the client's (`describeActivity`, `retryCountdown`).
 *
 * @example
 * const tracker = new PhaseTracker('run-1', { recovers: false });
 * tracker.observe(store.getState()); // [{ type: 'phase', text: 'Waiting for the model', … }]
 */
export class PhaseTracker {
  readonly #runId: string;
  readonly #recovers: boolean;
  readonly #now: () => number;
  #lastKey: string | null = null;
  #owner: string | null | undefined = undefined;
  /** Whether the owner held a lease: a paused run's (released) is resumed, not taken over. */
  #leased = false;
  #createdAt: string | undefined;

  constructor(runId: string, options: { recovers: boolean; now?: () => number }) {
    this.#runId = runId;
    this.#recovers = options.recovers;
    this.#now = options.now ?? Date.now;
  }

  /** The records a state adds (none when it reads as the last one did). */
  observe(state: RunState): TailRecord[] {
    const { run } = state;
    if (run !== null) {
      this.#createdAt = run.createdAt;
      this.#owner = run.owner;
      this.#leased = run.leaseExpiresAt !== null;
    }
    const view = selectRunStatus(state);
    const { activity } = view;
    if (activity.kind === 'loading') return [];
    const approvals = awaitedApprovals(state.assistant?.message ?? null, activity);
    const key = [
      activity.kind,
      statusText(describeActivity(activity, defaultRunStatusLabels, { recovers: this.#recovers })),
      activity.since ?? view.since,
      activity.attempt,
      activity.failure?.code,
      approvals.map((approval) => approval.approvalId).join(','),
    ].join('|');
    if (key === this.#lastKey) return [];
    this.#lastKey = key;
    const at = phaseAt(activity, view);
    const { text, retry } = statusWords(activity, {
      clockOffsetMs: state.clockOffsetMs,
      recovers: this.#recovers,
      now: this.#now(),
    });
    return [
      {
        type: 'phase',
        runId: this.#runId,
        activity: activity.kind,
        text,
        at,
        elapsedMs: between(this.#createdAt, at),
        ...(activity.attempt === undefined ? {} : { attempt: activity.attempt }),
        ...(retry === null ? {} : { retryAt: retry.retryAt }),
        ...(retry?.maxAttempts === undefined ? {} : { maxAttempts: retry.maxAttempts }),
        ...(activity.failure === undefined ? {} : { failure: activity.failure.code }),
        ...(approvals.length === 0 ? {} : { approvals }),
      },
    ];
  }

  /**
   * A durable event as it is merged: an acquisition by another owner than the one holding the
   * run's lease is a takeover — or, when the record says the lease was handed over (a graceful
   * shutdown), a planned hand-off. A resume after approvals follows a release (no lease): another
   * worker answering through a gateway is neither.
   */
  observeEvent(event: DurableRunEvent): TailRecord[] {
    const leased = this.#leased;
    if (event.leaseExpiresAt !== undefined) this.#leased = event.leaseExpiresAt !== null;
    if (event.type !== 'run-status') return [];
    const previous = this.#owner;
    this.#owner = event.owner;
    const takenOver =
      event.change === 'acquired' &&
      leased &&
      previous != null &&
      event.owner !== null &&
      event.owner !== previous;
    if (!takenOver) return [];
    const planned = event.handOff?.to !== undefined;
    return [
      {
        type: 'takeover',
        runId: this.#runId,
        text: planned
          ? defaultRunStatusLabels.handedOver
          : defaultRunStatusLabels.failure.ownership_lost,
        ...(planned ? { planned: true as const } : {}),
        at: event.at,
        elapsedMs: between(this.#createdAt, event.at),
      },
    ];
  }
}

/**
 * What a status reads for `activity`, as `RunStatus` shows it: a retry wait whose time the
 * record carries counts down (`retryCountdown`), anything else is `statusText(describeActivity)`.
 */
export function statusWords(
  activity: Activity,
  context: { clockOffsetMs: number | null; recovers: boolean; now: number },
): { text: string; retry: { retryAt: string; maxAttempts: number | undefined } | null } {
  const operation = activity.operation;
  const retry =
    activity.kind === 'waiting-for-model' &&
    activity.attempt !== undefined &&
    operation?.phase === 'failed' &&
    operation.retryAt !== undefined
      ? { retryAt: operation.retryAt, maxAttempts: operation.maxAttempts }
      : null;
  const labels = defaultRunStatusLabels;
  const text =
    retry === null
      ? statusText(describeActivity(activity, labels, { recovers: context.recovers }))
      : labels.retryCountdown(
          secondsUntil(retry.retryAt, context.clockOffsetMs, context.now),
          activity.attempt!,
          retry.maxAttempts,
        );
  return { text, retry };
}

/**
 * When a phase began, as its record says: the status's `since`, except where the status counts
 * from earlier — a retry wait began when the failed attempt ended, a retry attempt when it
 * started (the status counts both from the request's first attempt) — and a finished run's
 * line is its terminal commit.
 */
function phaseAt(activity: Activity, view: RunStatusView): string | null {
  if (TERMINAL.has(activity.kind)) return view.until ?? null;
  const operation = activity.operation;
  if (activity.kind === 'waiting-for-model' && activity.attempt !== undefined && operation) {
    return (operation.phase === 'failed' ? operation.endedAt : operation.startedAt) ?? null;
  }
  return view.since ?? null;
}

/** Whole seconds to a server timestamp on the estimated server clock, never below 0. */
export function secondsUntil(at: string, clockOffsetMs: number | null, now: number): number {
  const target = Date.parse(at);
  if (Number.isNaN(target)) return 0;
  return Math.max(0, Math.ceil((target - (now + (clockOffsetMs ?? 0))) / 1000));
}

/** The tool calls waiting on an answer, while the run awaits approval. */
function awaitedApprovals(message: UIMessage | null, activity: Activity): AwaitedApproval[] {
  if (message === null || activity.kind !== 'awaiting-approval') return [];
  const awaited: AwaitedApproval[] = [];
  for (const part of message.parts) {
    if (!('state' in part) || part.state !== 'approval-requested' || !('approval' in part))
      continue;
    const toolName =
      'toolName' in part && typeof part.toolName === 'string'
        ? part.toolName
        : part.type.replace(/^tool-/, '');
    awaited.push({ approvalId: part.approval.id, toolName });
  }
  return awaited;
}
