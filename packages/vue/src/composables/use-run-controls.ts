import {
  type ApprovalAnswer,
  type PendingApproval,
  type RunControlResult,
  type RunlightClientError,
  runControlsEquals,
  selectRunControls,
  settleRunControl,
} from '@runlight/client';
import { computed, type MaybeRefOrGetter, type Ref, shallowRef, toValue } from 'vue';
import { useRunlight } from '../plugin/use-runlight';
import { useStoreSelection } from './use-store-selection';

export type { RunControlResult };

const NO_APPROVALS: readonly PendingApproval[] = [];

/** What a user can do to a run now — cancel it, answer its tool approval requests — and how. */
export interface RunControls {
  /**
   * `POST …/runs/:id/cancel`. Resolves to `{ ok: true }` once the server recorded it, or
   * `{ ok: false, error }` with the typed error (e.g. `code: 'run_ended'`); never rejects.
   */
  cancel(): Promise<RunControlResult>;
  /** `POST …/runs/:id/approvals`; resolves like `cancel`. */
  answerApprovals(approvals: readonly ApprovalAnswer[]): Promise<RunControlResult>;
  /** A cancel can be recorded now (the run is loaded, has not ended, no cancel on its way). */
  readonly canCancel: Readonly<Ref<boolean>>;
  /**
   * The approval requests an answer can settle now (`pendingApprovals` of a run awaiting
   * approval); empty otherwise and while answers are on their way.
   */
  readonly approvals: Readonly<Ref<readonly PendingApproval[]>>;
  readonly cancelling: Readonly<Ref<boolean>>;
  readonly answering: Readonly<Ref<boolean>>;
  /** The typed error of the request sent last, of those that failed; null once one succeeds. */
  readonly error: Readonly<Ref<RunlightClientError | null>>;
}

/**
 * Cancel and approval answers for a run, what the run's facts allow now, the pending flags and
 * the last typed error (through `client.cancel` / `client.answerApprovals`).
 *
 * @example
 * const { cancel, canCancel } = useRunControls(runId);
 * // <button :disabled="!canCancel" @click="cancel()">Stop</button>
 */
export function useRunControls(runId: MaybeRefOrGetter<string>): RunControls {
  const { client } = useRunlight('useRunControls');
  const view = useStoreSelection('useRunControls', runId, selectRunControls, runControlsEquals);
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
  ): Promise<RunControlResult> => {
    const order = ++sent;
    pending.value = true;
    const result = await settleRunControl(request);
    if (result.ok) failures.delete(kind);
    else failures.set(kind, { sent: order, error: result.error });
    pending.value = false;
    const last = [...failures.values()].sort((a, b) => b.sent - a.sent)[0];
    error.value = last?.error ?? null;
    return result;
  };
  return {
    cancel: () => track('cancel', cancelling, () => client.cancel(toValue(runId))),
    answerApprovals: (approvals) =>
      track('approvals', answering, () => client.answerApprovals(toValue(runId), approvals)),
    canCancel: computed(() => view.value.canCancel && !cancelling.value),
    approvals: computed(() => (answering.value ? NO_APPROVALS : view.value.approvals)),
    cancelling,
    answering,
    error,
  };
}
