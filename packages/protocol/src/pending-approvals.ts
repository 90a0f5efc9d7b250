import type { UIMessage } from 'ai';

type Part = UIMessage['parts'][number];

/** One tool call of an assistant message that waits for the user's answer. */
export interface PendingApproval {
  /** The id an answer names (`ApprovalAnswer.approvalId`). */
  readonly approvalId: string;
  readonly toolCallId: string;
  /** The tool's name: `toolName` of a `dynamic-tool` part, else the part type after `tool-`. */
  readonly toolName: string;
  /** The call's input as the model gave it, for the user to judge. */
  readonly input: unknown;
}

/**
 * The approval requests `message` still waits for, in the order of its parts — the one
 * definition the runtime, the HTTP routes, the client, the bindings, the devtools and the CLI
 * share, so a run one of them calls "awaiting approval" lists the same requests everywhere.
 *
 * A request is pending when a tool part (`tool-*` or `dynamic-tool`) is in the state
 * `approval-requested` **and** carries an `approval` object with a non-empty string `id`.
 * A part in that state without one (the AI SDK's types require it, but a stored or served
 * message is checked loosely) is deliberately **not** pending: an answer is addressed by its
 * approval id alone, so nothing could answer it — listing it would offer a button that cannot
 * work, and counting it would hold the run as awaiting an answer nobody can give. An id that
 * two parts share is listed once, at its first part (one answer would settle both).
 *
 * @example
 * const pending = pendingApprovals(snapshot.assistant?.message);
 * if (pending.length > 0) await client.answerApprovals(runId, pending.map(({ approvalId }) => ({ approvalId, approved: true })));
 */
export function pendingApprovals(
  message: Pick<UIMessage, 'parts'> | null | undefined,
): PendingApproval[] {
  const pending: PendingApproval[] = [];
  const seen = new Set<string>();
  for (const part of message?.parts ?? []) {
    const request = requestOf(part);
    if (request === null || seen.has(request.approvalId)) continue;
    seen.add(request.approvalId);
    pending.push(request);
  }
  return pending;
}

function requestOf(part: Part): PendingApproval | null {
  if (!('state' in part) || part.state !== 'approval-requested') return null;
  // Typed as required, read as possibly missing: the message may come from a store or a server.
  const approval: { readonly id?: unknown } | null | undefined = part.approval;
  const approvalId = approval?.id;
  if (typeof approvalId !== 'string' || approvalId === '') return null;
  const toolName = part.type === 'dynamic-tool' ? part.toolName : part.type.slice('tool-'.length);
  return { approvalId, toolCallId: part.toolCallId, toolName, input: part.input };
}
