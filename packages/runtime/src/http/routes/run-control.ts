import { type AgentRun, safeParseApprovalsBody } from '@runlight/protocol';
import { InvalidTransitionError } from '../../errors/invalid-transition-error';
import { RuntimeClosedError } from '../../errors/runtime-closed-error';
import type { RunHandle } from '../../runner/agent-runtime';
import { jsonError } from '../json-error';
import { readJsonBody } from './read-json-body';
import { notAwaitingApproval, recordApprovals, recordCancel } from './record-control-request';
import type { RunControlContext } from './run-control-context';

export type { RunControl, RunControlContext } from './run-control-context';

/** Starts a run for `POST …/runs`; the app supplies model, messages and tools. */
export type StartRun = (input: {
  request: Request;
  /** The id the run gets (crypto-random). */
  runId: string;
  /** The JSON body (validated by the app), `undefined` when empty. */
  body: unknown;
}) => RunHandle | Response | Promise<RunHandle | Response>;

/**
 * A failed execution the route answered for: its refusal was already the response; any other
 * failure goes to `onError` (a run's own failure is recorded in the store, not thrown here).
 */
function observeEnd(context: RunControlContext, error: unknown): void {
  if (error instanceof TypeError) return;
  if (InvalidTransitionError.isInstance(error)) return;
  context.onError?.(error);
}

const accepted = (runId: string) =>
  Response.json({ runId }, { status: 202, headers: { 'Cache-Control': 'no-store' } });

const unsupported = (what: string) =>
  jsonError(501, 'not_supported', `This server's runtime does not ${what}`);

/** `POST …/runs/:id/cancel` → `202 { runId }` (body ignored). */
export async function cancelRunRoute(context: RunControlContext, runId: string) {
  const { control } = context;
  if (context.store.controlRequests) return recordCancel(context, runId);
  if (typeof control.cancelRun !== 'function') return unsupported('cancel runs');
  try {
    await context.store.getRun(runId);
  } catch (error) {
    return context.failure(error, runId);
  }
  control.cancelRun(runId);
  return accepted(runId);
}

/** `POST …/runs/:id/approvals` → `202 { runId }` once the resume was admitted. */
export async function approveRunRoute(
  context: RunControlContext,
  request: Request,
  runId: string,
): Promise<Response> {
  const { control } = context;
  const durable = context.store.controlRequests !== undefined;
  if (!durable && typeof control.resumeRun !== 'function') return unsupported('resume runs');
  const body = await readJsonBody(request, context.maxBodyBytes);
  if (!body.ok) return body.response;
  const parsed = safeParseApprovalsBody(body.value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path !== '(root)' ? issue.path : '(body)';
    return jsonError(400, 'bad_body', `${where}: ${issue?.message ?? 'is invalid'}`);
  }
  const approvals = parsed.data.approvals.map(({ reason, ...answer }) =>
    reason === undefined ? answer : { ...answer, reason },
  );
  if (durable) return recordApprovals(context, runId, approvals);
  let run: AgentRun;
  try {
    run = await context.store.getRun(runId);
  } catch (error) {
    return context.failure(error, runId);
  }
  const notAwaiting = () => notAwaitingApproval(runId);
  if (run.status !== 'running') return notAwaiting();
  try {
    if (!control.resumeRun) return unsupported('resume runs');
    const handle = control.resumeRun({ runId, approvals });
    // Only `created` decides the answer; the execution's end must still be observed.
    handle.done.catch((error: unknown) => observeEnd(context, error));
    await handle.created;
  } catch (error) {
    // The runtime refuses approvals its paused message does not hold (or a run it is not
    // pausing) with a TypeError: the client's answer, not the server, is wrong.
    if (error instanceof TypeError) {
      const code = (error as { code?: unknown }).code;
      if (code === 'duplicate_approval') return jsonError(400, 'bad_body', error.message);
      if (code === 'run_executing' || code === 'already_resuming') {
        return jsonError(
          409,
          code,
          `Run ${runId} is ${code.replace('run_', '').replace('_', ' ')}`,
        );
      }
      return notAwaiting();
    }
    if (InvalidTransitionError.isInstance(error) && error.rule === 'run-ended') {
      return jsonError(409, 'run_ended', `Run ${runId} already ended`);
    }
    return context.failure(error, runId);
  }
  return accepted(runId);
}

/** `POST …/runs` → `201 { runId }` once the run exists in the store. */
export async function startRunRoute(
  context: RunControlContext,
  start: StartRun,
  request: Request,
  runId: string,
): Promise<Response> {
  const body = await readJsonBody(request, context.maxBodyBytes);
  if (!body.ok) return body.response;
  try {
    const started = await start({ request, runId, body: body.value });
    if (started instanceof Response) return started;
    // The run exists before its id is returned: the client's first snapshot cannot 404.
    started.done.catch((error: unknown) => observeEnd(context, error));
    await started.created;
  } catch (error) {
    // A runtime shutting down (a deploy): another instance takes the start.
    if (RuntimeClosedError.isInstance(error)) {
      return jsonError(503, 'runtime_closed', 'The server is shutting down; retry the start');
    }
    const conflict = startConflictResponse(error);
    if (conflict) return conflict;
    return context.failure(error, runId);
  }
  return Response.json({ runId }, { status: 201, headers: { 'Cache-Control': 'no-store' } });
}

/**
 * `409 run_ended` / `409 run_executing` for a start the runtime refused because the id is
 * taken (`startRun` of a run that ended or is running), else `null`. Never a stale `201`.
 */
export function startConflictResponse(error: unknown): Response | null {
  if (!InvalidTransitionError.isInstance(error)) return null;
  if (error.rule === 'run-ended') {
    return jsonError(409, 'run_ended', `Run ${error.runId} already ended; start a new run id`);
  }
  if (error.rule === 'run-exists') {
    return jsonError(409, 'run_executing', `Run ${error.runId} is already running`);
  }
  return null;
}
