import type { ApprovalAnswer, RunlightClientError } from '@runlight/client';
import { useMutation } from '@tanstack/react-query';
import { useRunlight } from '../provider/runlight-context';

/** What `useRunControls` returns: the run's two control requests and where they stand. */
export interface RunControls {
  /** Cancels the run (`client.cancel`); resolves once the server accepted it. */
  cancel(): Promise<void>;
  /** Answers the run's approval requests (`client.answerApprovals`). */
  answerApprovals(approvals: readonly ApprovalAnswer[]): Promise<void>;
  /** A cancel is on its way. */
  cancelling: boolean;
  /** Answers are on their way. */
  answering: boolean;
  /** The last failed request's typed error (`unauthorized`, `not_awaiting_approval`, …), or null. */
  error: RunlightClientError | null;
}

/**
 * Cancel and approval buttons for a run, on the library's control routes with the client's
 * headers and credentials (TanStack Query mutations on the provider's query client). The run's
 * new state arrives on its store like any event; these only say whether the request was taken.
 *
 * @example
 * const { cancel, cancelling } = useRunControls(runId);
 * <button disabled={cancelling} onClick={() => void cancel()}>Stop</button>
 */
export function useRunControls(runId: string): RunControls {
  const { client, queryClient } = useRunlight('useRunControls');
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
    cancel: () => cancel.mutateAsync(),
    answerApprovals: (approvals) => answer.mutateAsync(approvals),
    cancelling: cancel.isPending,
    answering: answer.isPending,
    error: failed?.error ?? null,
  };
}
