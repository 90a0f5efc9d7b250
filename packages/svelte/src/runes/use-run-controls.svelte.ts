import type { ApprovalAnswer, RunlightClientError } from '@runlight/client';
import { getRunlightContext } from '../context/runlight-context.svelte.js';
import { type MaybeGetter, read } from './maybe-getter.js';

/** What `useRunControls` gives: the run's two control requests and where they stand. */
export interface RunControls {
  /** Cancels the run (`client.cancel`); resolves once the server accepted it. */
  cancel(): Promise<void>;
  /** Answers the run's approval requests (`client.answerApprovals`). */
  answerApprovals(approvals: readonly ApprovalAnswer[]): Promise<void>;
  /** A cancel is on its way. */
  readonly cancelling: boolean;
  /** Answers are on their way. */
  readonly answering: boolean;
  /** The last failed request's typed error (`unauthorized`, `not_awaiting_approval`, …), or null. */
  readonly error: RunlightClientError | null;
}

/**
 * Cancel and approval buttons for a run, on the library's control routes with the client's
 * headers and credentials. The run's new state arrives on its store like any event; these only
 * say whether the request was taken. `cancelling`, `answering` and `error` are reactive.
 *
 * @example
 * const controls = useRunControls(() => runId);
 * <button disabled={controls.cancelling} onclick={() => controls.cancel()}>Stop</button>
 */
export function useRunControls(runId: MaybeGetter<string>): RunControls {
  const { client } = getRunlightContext('useRunControls');
  // Each request kind's latest: pending, its error, and when it was sent (as a mutation keeps).
  const latest = $state({
    cancel: { pending: 0, error: null as RunlightClientError | null, sentAt: 0 },
    answer: { pending: 0, error: null as RunlightClientError | null, sentAt: 0 },
  });
  let sent = 0;
  const track = async (kind: 'cancel' | 'answer', request: () => Promise<void>) => {
    const entry = latest[kind];
    const order = ++sent;
    entry.pending++;
    entry.sentAt = order;
    entry.error = null;
    try {
      await request();
    } catch (caught) {
      if (entry.sentAt === order) entry.error = caught as RunlightClientError;
      throw caught;
    } finally {
      entry.pending--;
    }
  };
  return {
    cancel: () => track('cancel', () => client.cancel(read(runId))),
    answerApprovals: (approvals) =>
      track('answer', () => client.answerApprovals(read(runId), approvals)),
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
