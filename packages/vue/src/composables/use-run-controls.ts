import { type ApprovalAnswer, RunlightClientError } from '@runlight/client';
import { type MaybeRefOrGetter, type Ref, shallowRef, toValue } from 'vue';
import { useRunlight } from '../plugin/use-runlight';

/** What a user can do to a run: cancel it, answer its tool approval requests. */
export interface RunControls {
  /** `POST …/runs/:id/cancel`; resolves once the server accepted it. Rejects with the error. */
  cancel(): Promise<void>;
  /** `POST …/runs/:id/approvals`; resolves once the server admitted the resume. */
  answerApprovals(approvals: readonly ApprovalAnswer[]): Promise<void>;
  readonly cancelling: Readonly<Ref<boolean>>;
  readonly answering: Readonly<Ref<boolean>>;
  /** The typed error of the request sent last, of those that failed; null once one succeeds. */
  readonly error: Readonly<Ref<RunlightClientError | null>>;
}

/**
 * Cancel and approval answers for a run, with their pending flags and last typed error
 * (through `client.cancel` / `client.answerApprovals`).
 *
 * @example
 * const { cancel, cancelling, error } = useRunControls(runId);
 */
export function useRunControls(runId: MaybeRefOrGetter<string>): RunControls {
  const { client } = useRunlight('useRunControls');
  const cancelling = shallowRef(false);
  const answering = shallowRef(false);
  const error = shallowRef<RunlightClientError | null>(null);
  // The error shown is that of the request sent last, of those that failed.
  const failures = new Map<'cancel' | 'approvals', { sent: number; error: RunlightClientError }>();
  let sent = 0;
  const track = async (
    kind: 'cancel' | 'approvals',
    pending: typeof cancelling,
    request: () => Promise<void>,
  ): Promise<void> => {
    const order = ++sent;
    pending.value = true;
    try {
      await request();
      failures.delete(kind);
    } catch (caught) {
      failures.set(kind, { sent: order, error: typed(caught) });
      throw caught;
    } finally {
      pending.value = false;
      const last = [...failures.values()].sort((a, b) => b.sent - a.sent)[0];
      error.value = last?.error ?? null;
    }
  };
  return {
    cancel: () => track('cancel', cancelling, () => client.cancel(toValue(runId))),
    answerApprovals: (approvals) =>
      track('approvals', answering, () => client.answerApprovals(toValue(runId), approvals)),
    cancelling,
    answering,
    error,
  };
}

function typed(error: unknown): RunlightClientError {
  if (RunlightClientError.isInstance(error)) return error;
  return new RunlightClientError(
    'network',
    error instanceof Error ? error.message : String(error),
    {
      cause: error,
    },
  );
}
