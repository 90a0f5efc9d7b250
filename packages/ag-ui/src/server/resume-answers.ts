import type { ResumeEntry } from '@ag-ui/core';
import type { ApprovalAnswer } from '@runlight/client';
import type { AgentRuntimeStore } from '@runlight/runtime';
import { parseInterruptId } from '../mapping/interrupt-id';

/**
 * The approval answers of a `RunAgentInput.resume`: `resolved` with a payload `{ approved,
 * reason? }` (or a bare boolean) answers the approval; `cancelled` denies it. Every entry must
 * name one run (`<runId>/<approvalId>`, the ids this adapter's interrupts carry).
 */
export function approvalsOf(
  resume: readonly ResumeEntry[],
): { ok: true; runId: string; approvals: ApprovalAnswer[] } | { ok: false; message: string } {
  let runId: string | null = null;
  const approvals: ApprovalAnswer[] = [];
  for (const entry of resume) {
    const named = parseInterruptId(entry.interruptId);
    if (named === null)
      return {
        ok: false,
        message: `resume: ${entry.interruptId} is not an interrupt of this server`,
      };
    if (runId !== null && named.runId !== runId) {
      return { ok: false, message: 'resume: every entry must answer interrupts of one run' };
    }
    runId = named.runId;
    const payload = entry.payload as unknown;
    const approved =
      entry.status === 'resolved' &&
      (payload === true ||
        (typeof payload === 'object' &&
          payload !== null &&
          (payload as { approved?: unknown }).approved === true));
    const reason =
      typeof payload === 'object' &&
      payload !== null &&
      typeof (payload as { reason?: unknown }).reason === 'string'
        ? (payload as { reason: string }).reason
        : undefined;
    approvals.push({
      approvalId: named.approvalId,
      approved,
      ...(reason === undefined ? {} : { reason }),
    });
  }
  if (runId === null) return { ok: false, message: 'resume: no entries' };
  return { ok: true, runId, approvals };
}

/**
 * The approvals of `runId` answered durably whose effect is not known to have happened yet
 * (pending, or claimed and not yet applied): a stream that starts now must not offer them.
 */
export async function answeredApprovals(
  store: Pick<AgentRuntimeStore, 'controlRequests'>,
  runId: string,
): Promise<Set<string>> {
  const requests = store.controlRequests;
  if (!requests) return new Set();
  const [pending, stale] = await Promise.all([
    requests.pending([runId]),
    requests.stale({ runIds: [runId], pendingForMs: 0, claimedForMs: 0, limit: 100 }),
  ]);
  return new Set(
    [...pending, ...stale].flatMap((request) =>
      (request.approvals ?? []).map((answer) => answer.approvalId),
    ),
  );
}
