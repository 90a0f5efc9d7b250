import { pendingApprovals } from '@runlight/protocol';
import type { UIMessage } from 'ai';
import type { ToolApprovalAnswer } from '../run-options';

/** Why `resumeRun` refused an answer before chaining anything onto the run. */
export type ApprovalRefusalCode =
  | 'run_executing'
  | 'already_resuming'
  | 'unknown_approval'
  | 'duplicate_approval';

/**
 * An approval answer the run cannot take now (it is executing, another answer is resuming it,
 * or the ids are not its pending requests). A `TypeError`: the caller's answer is wrong, not the
 * server; the HTTP route answers `409` with `code`.
 */
export class ApprovalRefusedError extends TypeError {
  readonly code: ApprovalRefusalCode;
  constructor(code: ApprovalRefusalCode, message: string) {
    super(message);
    this.name = 'ApprovalRefusedError';
    this.code = code;
  }
}

/**
 * `resumeRun` without `model` and `messages` for a run this process does not keep paused. Not
 * a verdict on the answer — it may well be right, and another process (or recovery, which
 * adopts the answers of runs whose process is gone) can apply it — only on this process. A
 * `TypeError` for the caller that forgot the options; a claimed request that meets it stays
 * unapplied (`isRefusal` says no).
 */
export class NotPausedHereError extends TypeError {
  readonly code = 'not_paused_here';
  constructor(runId: string) {
    super(`Run ${runId} is not paused in this process: pass model and messages to resumeRun`);
    this.name = 'NotPausedHereError';
  }
}

/** The ids of the approval requests `message` still waits for (`pendingApprovals`). */
export function pendingApprovalIds(message: UIMessage | null | undefined): Set<string> {
  return new Set(pendingApprovals(message).map((request) => request.approvalId));
}

/** The tool parts of `message` with the user's answers applied, as the AI SDK UI does. */
export function answerApprovals(
  message: UIMessage,
  approvals: readonly ToolApprovalAnswer[],
): UIMessage {
  const pending = new Map(approvals.map((answer) => [answer.approvalId, answer]));
  if (pending.size !== approvals.length) {
    throw new ApprovalRefusedError('duplicate_approval', 'An approvalId is answered twice');
  }
  const requested = pendingApprovalIds(message);
  const parts = message.parts.map((part) => {
    if (!('state' in part) || part.state !== 'approval-requested') return part;
    // Only a request `pendingApprovals` lists can be answered (a part without an approval id
    // is not one); its id is then a string.
    const id: unknown = part.approval?.id;
    const answer = typeof id === 'string' && requested.has(id) ? pending.get(id) : undefined;
    if (!answer) return part;
    pending.delete(answer.approvalId);
    const approval = { id: answer.approvalId, approved: answer.approved, reason: answer.reason };
    return { ...part, state: 'approval-responded', approval } as unknown as typeof part;
  });
  if (pending.size > 0) {
    throw new ApprovalRefusedError(
      'unknown_approval',
      `Run has no pending approval request ${[...pending.keys()].join(', ')} in its assistant message`,
    );
  }
  // An unanswered request would reach the model as a tool call without a result: the SDK
  // refuses that, and the failure is the caller's, not the provider's.
  const unanswered = [...pendingApprovalIds({ ...message, parts })];
  if (unanswered.length > 0) {
    throw new TypeError(`Run has unanswered approval requests ${unanswered.join(', ')}`);
  }
  return { ...message, parts };
}
