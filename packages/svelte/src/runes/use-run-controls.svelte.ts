import {
  type ApprovalAnswer,
  type PendingApproval,
  type RunControlResult,
  type RunlightClientError,
  runControlsEquals,
  selectRunControls,
  settleRunControl,
} from '@runlight/client';
import { getRunlightContext } from '../context/runlight-context.svelte.js';
import { type MaybeGetter, read } from './maybe-getter.js';
import { selectionOf } from './run-store-of.js';

export type { RunControlResult };

const NO_APPROVALS: readonly PendingApproval[] = [];

/** What `useRunControls` gives: what can be done to the run now, and the two requests. */
export interface RunControls {
  /**
   * Cancels the run (`client.cancel`). Resolves to `{ ok: true }` once the server recorded it,
   * or `{ ok: false, error }` with the typed error (e.g. `code: 'run_ended'`); never rejects.
   */
  cancel(): Promise<RunControlResult>;
  /** Answers the run's approval requests (`client.answerApprovals`); resolves like `cancel`. */
  answerApprovals(approvals: readonly ApprovalAnswer[]): Promise<RunControlResult>;
  /** A cancel can be recorded now (the run is loaded, has not ended, no cancel on its way). */
  readonly canCancel: boolean;
  /**
   * The approval requests an answer can settle now (`pendingApprovals` of a run awaiting
   * approval); empty otherwise and while answers are on their way.
   */
  readonly approvals: readonly PendingApproval[];
  /** A cancel is on its way. */
  readonly cancelling: boolean;
  /** Answers are on their way. */
  readonly answering: boolean;
  /** The last failed request's typed error (`unauthorized`, `not_awaiting_approval`, …), or null. */
  readonly error: RunlightClientError | null;
}

/**
 * Cancel and approval buttons for a run, on the library's control routes with the client's
 * headers and credentials. `canCancel` follows the run's facts (reading it subscribes to the
 * run); the run's new state arrives on its store like any event, the requests only say
 * whether the server took them. Every field is reactive.
 *
 * @example
 * const controls = useRunControls(() => runId);
 * <button disabled={!controls.canCancel} onclick={() => void controls.cancel()}>Stop</button>
 */
export function useRunControls(runId: MaybeGetter<string>): RunControls {
  const { client } = getRunlightContext('useRunControls');
  const view = selectionOf('useRunControls', runId, selectRunControls, runControlsEquals);
  // Each request kind's latest: pending, its error, and when it was sent (as a mutation keeps).
  const latest = $state({
    cancel: { pending: 0, error: null as RunlightClientError | null, sentAt: 0 },
    answer: { pending: 0, error: null as RunlightClientError | null, sentAt: 0 },
  });
  let sent = 0;
  const track = async (
    kind: 'cancel' | 'answer',
    request: () => Promise<void>,
  ): Promise<RunControlResult> => {
    const entry = latest[kind];
    const order = ++sent;
    entry.pending++;
    entry.sentAt = order;
    entry.error = null;
    const result = await settleRunControl(request);
    if (!result.ok && entry.sentAt === order) entry.error = result.error;
    entry.pending--;
    return result;
  };
  return {
    cancel: () => track('cancel', () => client.cancel(read(runId))),
    answerApprovals: (approvals) =>
      track('answer', () => client.answerApprovals(read(runId), approvals)),
    get canCancel() {
      return view.current.canCancel && latest.cancel.pending === 0;
    },
    get approvals() {
      return latest.answer.pending > 0 ? NO_APPROVALS : view.current.approvals;
    },
    get cancelling() {
      return latest.cancel.pending > 0;
    },
    get answering() {
      return latest.answer.pending > 0;
    },
    get error() {
      // The error of the request sent last, of those that failed.
      const failed = [latest.cancel, latest.answer].filter((entry) => entry.error !== null);
      return failed.sort((a, b) => b.sentAt - a.sentAt)[0]?.error ?? null;
    },
  };
}
