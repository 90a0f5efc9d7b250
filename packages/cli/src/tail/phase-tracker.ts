import {
  type Activity,
  countdownSeconds,
  defaultRunStatusLabels,
  describeActivity,
  type RunState,
  type RunStatusView,
  selectRunStatus,
  statusText,
} from '@runlight/client';
import { type DurableRunEvent, pendingApprovals, type UIMessage } from '@runlight/protocol';
import { SERVER_BACK, SERVER_GONE } from '../output/unreadable';
import { type AwaitedApproval, between, type TailRecord } from './tail-records';

type PhaseLine = NonNullable<Extract<TailRecord, { type: 'phase' }>['line']>;

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
  /** Every phase printed, by activity and start: one printed again is a resumed phase. */
  readonly #printed = new Set<string>();
  /** The latest time a line was dated at. */
  #lastShown: { ms: number; at: string } | null = null;

  constructor(runId: string, options: { recovers: boolean; now?: () => number }) {
    this.#runId = runId;
    this.#recovers = options.recovers;
    this.#now = options.now ?? Date.now;
  }

  /**
   * The records a state adds (none when it reads as the last one did). While the server is out
   * of contact (`outOfContact`) a lease that runs out proves nothing — a renewal could not have
   * reached this client — so no stall is printed then.
   */
  observe(state: RunState, context: { outOfContact?: boolean } = {}): TailRecord[] {
    const { run } = state;
    if (run !== null) {
      this.#createdAt = run.createdAt;
      this.#owner = run.owner;
      this.#leased = run.leaseExpiresAt !== null;
    }
    const view = selectRunStatus(state);
    const { activity } = view;
    if (activity.kind === 'loading') return [];
    if (activity.kind === 'stalled' && context.outOfContact === true) return [];
    const approvals = awaitedApprovals(state.assistant?.message ?? null, activity);
    const words = statusText(
      describeActivity(activity, defaultRunStatusLabels, { recovers: this.#recovers }),
    );
    const key = [
      activity.kind,
      words,
      // One stall line per stall: a lease renewed on a clock behind this one's estimate (the
      // run still reads stalled) moves the lease's expiry, not the stall.
      activity.kind === 'stalled'
        ? `${activity.interrupted?.kind}:${activity.operation?.id}:${activity.operation?.phase}`
        : (activity.since ?? view.since),
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
    const identity = `${activity.kind}|${at}`;
    const resumed = this.#printed.has(identity);
    this.#printed.add(identity);
    // What a stall interrupted is what a new owner resumes, printed before or not.
    const { interrupted } = activity;
    if (interrupted?.since !== undefined)
      this.#printed.add(`${interrupted.kind}|${interrupted.since}`);
    const line = this.#lineTime(at, resumed);
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
        ...(line === null ? {} : { line }),
      },
    ];
  }

  /**
   * The server out of contact (`unreachable`), or answering again (`reachable`), dated `at` on
   * the estimated server clock — never before a line already printed.
   */
  connection(state: 'unreachable' | 'reachable', at: string): TailRecord {
    const dated = this.#lineTime(at, false)?.at ?? at;
    return {
      type: 'connection',
      runId: this.#runId,
      state,
      text: state === 'unreachable' ? SERVER_GONE : SERVER_BACK,
      at: dated,
      elapsedMs: between(this.#createdAt, dated),
    };
  }

  /**
   * The line clock: a time earlier than the latest line printed is shown at that line's time
   * (the record keeps its own `at`); a later one moves the clock on. `null`: shown at `at`.
   */
  #lineTime(at: string | null, resumed: boolean): PhaseLine | null {
    const ms = at === null ? Number.NaN : Date.parse(at);
    if (Number.isNaN(ms)) return null;
    if (this.#lastShown === null || ms >= this.#lastShown.ms) {
      this.#lastShown = { ms, at: at! };
      return null;
    }
    const shown = this.#lastShown.at;
    return { at: shown, elapsedMs: between(this.#createdAt, shown), resumed };
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
    const at = this.#lineTime(event.at, false)?.at ?? event.at;
    const planned = event.handOff?.to !== undefined;
    return [
      {
        type: 'takeover',
        runId: this.#runId,
        text: planned
          ? defaultRunStatusLabels.handedOver
          : defaultRunStatusLabels.failure.ownership_lost,
        ...(planned ? { planned: true as const } : {}),
        at,
        elapsedMs: between(this.#createdAt, at),
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

/** Whole seconds to a server timestamp on the estimated server clock (the client's one countdown), never below 0. */
export function secondsUntil(at: string, clockOffsetMs: number | null, now: number): number {
  return countdownSeconds(at, clockOffsetMs, now) ?? 0;
}

/** The tool calls waiting on an answer, while the run awaits approval. */
function awaitedApprovals(message: UIMessage | null, activity: Activity): AwaitedApproval[] {
  if (message === null || activity.kind !== 'awaiting-approval') return [];
  return pendingApprovals(message).map(({ approvalId, toolName }) => ({ approvalId, toolName }));
}
