import {
  type ApprovalAnswer,
  type PendingApproval,
  type RunControlResult,
  type RunControlsView,
  type RunlightClientError,
  runControlsEquals,
  selectRunControls,
  settleRunControl,
} from '@runlight/client';
import { useMutation } from '@tanstack/react-query';
import { useRunlight } from '../provider/runlight-context';
import { useRunStore } from '../provider/use-run-store';
import { useStoreSelector } from '../provider/use-store-selector';

export type { RunControlResult };

const NO_APPROVALS: readonly PendingApproval[] = [];

/** What `useRunControls` returns: what can be done to the run now, and the two requests. */
export interface RunControls extends RunControlsView {
  /**
   * Cancels the run (`client.cancel`). Resolves to `{ ok: true }` once the server recorded it,
   * or `{ ok: false, error }` with the typed error (e.g. `code: 'run_ended'`) — never rejects,
   * so `void cancel()` in a click handler is safe.
   */
  cancel(): Promise<RunControlResult>;
  /** Answers the run's approval requests (`client.answerApprovals`); resolves like `cancel`. */
  answerApprovals(approvals: readonly ApprovalAnswer[]): Promise<RunControlResult>;
  /** A cancel is on its way. */
  cancelling: boolean;
  /** Answers are on their way. */
  answering: boolean;
  /** The last failed request's typed error (`unauthorized`, `not_awaiting_approval`, …), or null. */
  error: RunlightClientError | null;
}

/**
 * Cancel and approval buttons for a run, on the library's control routes with the client's
 * headers and credentials (TanStack Query mutations on the provider's query client).
 * `canCancel` and `approvals` (the requests an answer can settle now, `pendingApprovals` of a
 * run awaiting approval) follow the run's facts — it subscribes to the run, like `useRun` — and
 * are off while a cancel, or answers, are on their way. The run's new state arrives on its store like any event; the
 * requests only say whether the server took them.
 *
 * @example
 * const { cancel, canCancel, approvals, answerApprovals } = useRunControls(runId);
 * <button disabled={!canCancel} onClick={() => void cancel()}>Stop</button>
 * {approvals.map(({ approvalId, toolName }) => (
 *   <button key={approvalId} onClick={() => void answerApprovals([{ approvalId, approved: true }])}>
 *     Allow {toolName}
 *   </button>
 * ))}
 */
export function useRunControls(runId: string): RunControls {
  const { client, queryClient } = useRunlight('useRunControls');
  const view = useStoreSelector(
    useRunStore('useRunControls', runId),
    selectRunControls,
    runControlsEquals,
  );
  const cancel = useMutation<void, RunlightClientError>(
    { mutationKey: ['runlight', 'cancel', runId], mutationFn: () => client.cancel(runId) },
    queryClient,
  );
  const answer = useMutation<void, RunlightClientError, readonly ApprovalAnswer[]>(
    {
      mutationKey: ['runlight', 'approvals', runId],
      mutationFn: (approvals) => client.answerApprovals(runId, approvals),
    },
    queryClient,
  );
  // The error of the request sent last, of those that failed.
  const failed = [cancel, answer]
    .filter((mutation) => mutation.error !== null)
    .sort((a, b) => b.submittedAt - a.submittedAt)[0];
  return {
    canCancel: view.canCancel && !cancel.isPending,
    approvals: answer.isPending ? NO_APPROVALS : view.approvals,
    cancel: () => settleRunControl(() => cancel.mutateAsync()),
    answerApprovals: (approvals) => settleRunControl(() => answer.mutateAsync(approvals)),
    cancelling: cancel.isPending,
    answering: answer.isPending,
    error: failed?.error ?? null,
  };
}
