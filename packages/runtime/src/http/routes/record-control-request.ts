import { isTerminalStatus, pendingApprovals, type RunSnapshot } from '@runlight/protocol';
import type { ToolApprovalAnswer } from '../../runner/run-options';
import type { ControlRequest } from '../../store/control-requests';
import { jsonError } from '../json-error';
import type { RunControlContext } from './run-control-context';

const recorded = (runId: string) =>
  Response.json({ runId }, { status: 202, headers: { 'Cache-Control': 'no-store' } });

export const notAwaitingApproval = (runId: string) =>
  jsonError(409, 'not_awaiting_approval', `Run ${runId} awaits none of these approvals here`);

const runEnded = (runId: string) => jsonError(409, 'run_ended', `Run ${runId} already ended`);

/**
 * A live lease: some process executes the run now. Compared on the clock that decides the
 * store's leases (the database's), not this process's, which may be minutes wrong.
 */
const leased = async (context: RunControlContext, snapshot: RunSnapshot) => {
  const expiresAt = snapshot.run.leaseExpiresAt;
  if (expiresAt === null) return false;
  const now = (await context.store.now?.().catch(() => undefined)) ?? new Date();
  return Date.parse(expiresAt) > now.getTime();
};

/**
 * Records `request` durably. `null` when recorded, else the answer: `409 already_resuming` for
 * a request id recorded before, `503 storage_unavailable` when the store did not record it —
 * never a `202` for a request that may be lost.
 */
async function record(
  context: RunControlContext,
  request: Omit<ControlRequest, 'createdAt'>,
  duplicate: () => Response | null,
): Promise<Response | null> {
  try {
    const stored = await context.store.controlRequests?.record(request);
    return stored ? null : duplicate();
  } catch (error) {
    context.onError?.(error);
    return jsonError(
      503,
      'storage_unavailable',
      `The ${request.kind} request for run ${request.runId} could not be recorded; retry`,
    );
  }
}

/**
 * `POST …/runs/:id/cancel` on a store with durable control requests: refuses what it can
 * check here (unknown run 404, ended 409 `run_ended`), then records the cancel (one per run)
 * for the process executing it and answers `202`. A run nobody leases (queued, paused) is
 * cancelled from here when this process has a runtime (the claim keeps that exactly once).
 */
export async function recordCancel(context: RunControlContext, runId: string) {
  let snapshot: RunSnapshot;
  try {
    snapshot = await context.store.getSnapshot(runId);
  } catch (error) {
    return context.failure(error, runId);
  }
  if (isTerminalStatus(snapshot.run.status)) return runEnded(runId);
  const refused = await record(context, { runId, requestId: 'cancel', kind: 'cancel' }, () => null);
  if (refused) return refused;
  const { cancelRun } = context.control;
  if (cancelRun && !(await leased(context, snapshot))) {
    try {
      if (await context.store.controlRequests?.claim(runId, 'cancel')) cancelRun(runId);
    } catch (error) {
      // Recorded: the executor's poll (or a later cancel) still applies it.
      context.onError?.(error);
    }
  }
  return recorded(runId);
}

/**
 * `POST …/runs/:id/approvals` on a store with durable control requests: checks the answers
 * against the run's stored message (ended 409 `run_ended`; executing 409 `run_executing`; ids
 * not pending 409 `not_awaiting_approval`), then records them under an id named for the
 * pending requests — so of concurrent answers exactly one is recorded and the others get 409
 * `already_resuming` — and answers `202`; the process that paused the run resumes it.
 */
export async function recordApprovals(
  context: RunControlContext,
  runId: string,
  approvals: ToolApprovalAnswer[],
): Promise<Response> {
  let snapshot: RunSnapshot;
  try {
    snapshot = await context.store.getSnapshot(runId);
  } catch (error) {
    return context.failure(error, runId);
  }
  if (isTerminalStatus(snapshot.run.status)) return runEnded(runId);
  if (snapshot.run.status !== 'running') return notAwaitingApproval(runId);
  const pending = new Set(
    pendingApprovals(snapshot.assistant?.message).map((request) => request.approvalId),
  );
  const answered = new Set(approvals.map((answer) => answer.approvalId));
  const matches =
    pending.size > 0 &&
    answered.size === pending.size &&
    [...answered].every((id) => pending.has(id));
  if (!matches) {
    if (pending.size === 0 && (await leased(context, snapshot))) {
      return jsonError(409, 'run_executing', `Run ${runId} is executing`);
    }
    return notAwaitingApproval(runId);
  }
  const requestId = `approvals:${[...pending].sort()[0]}`;
  const refused = await record(
    context,
    { runId, requestId, kind: 'approvals', approvals: [...approvals] },
    () => jsonError(409, 'already_resuming', `Run ${runId} is resuming`),
  );
  return refused ?? recorded(runId);
}
