import type { AssistantCheckpoint } from '@runlight/protocol';
import { isTerminalStatus, type PendingApproval, pendingApprovals } from '@runlight/protocol';
import type { RunState } from '../merge/run-state';
import { selectActivity } from '../select/select-activity';

/**
 * What a person can do to a run now, from its durable facts — what a Stop button and the
 * approval buttons follow.
 */
export interface RunControlsView {
  /**
   * A cancel can be recorded now: the run is loaded and has not ended (queued, running,
   * paused for approvals). False before the first snapshot and once the run ended — the server
   * would answer `409 run_ended`.
   */
  readonly canCancel: boolean;
  /**
   * The approval requests an answer can settle now: the run awaits approval (running, no
   * operation in flight) and these are its checkpoint's `pendingApprovals` — the one definition
   * the server checks answers against. Empty otherwise (an answer would be refused).
   */
  readonly approvals: readonly PendingApproval[];
}

const NO_APPROVALS: readonly PendingApproval[] = Object.freeze([]);
const NONE: RunControlsView = Object.freeze({ canCancel: false, approvals: NO_APPROVALS });
const CANCELLABLE: RunControlsView = Object.freeze({ canCancel: true, approvals: NO_APPROVALS });

/** One view per checkpoint awaiting answers, so an equal answer keeps its reference. */
const awaiting = new WeakMap<AssistantCheckpoint, RunControlsView>();

/**
 * Selects what can be done to the run now. Equal answers are the same object (the frozen
 * constants, or one per checkpoint awaiting answers), so a binding selecting it re-renders only
 * when the answer changes.
 *
 * @example
 * const { canCancel, approvals } = selectRunControls(store.getState());
 * stopButton.disabled = !canCancel;
 * for (const { approvalId, toolName } of approvals) showApprove(approvalId, toolName);
 */
export function selectRunControls(state: RunState): RunControlsView {
  const { run, assistant } = state;
  if (run === null || isTerminalStatus(run.status)) return NONE;
  if (assistant === null || selectActivity(state).kind !== 'awaiting-approval') return CANCELLABLE;
  let view = awaiting.get(assistant);
  if (view === undefined) {
    const approvals = pendingApprovals(assistant.message);
    view = Object.freeze({
      canCancel: true,
      approvals: approvals.length === 0 ? NO_APPROVALS : Object.freeze(approvals),
    });
    awaiting.set(assistant, view);
  }
  return view;
}

/**
 * Equal when the controls would show the same thing: the same cancel answer and the same
 * approval ids in the same order.
 *
 * @example
 * useRun(runId, { select: selectRunControls, isEqual: runControlsEquals });
 */
export function runControlsEquals(a: RunControlsView, b: RunControlsView): boolean {
  if (a === b) return true;
  if (a.canCancel !== b.canCancel || a.approvals.length !== b.approvals.length) return false;
  return a.approvals.every(
    (approval, index) => approval.approvalId === b.approvals[index]?.approvalId,
  );
}
