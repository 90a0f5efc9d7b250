import { RunIdSchema } from '@runlight/protocol';
import { httpErrorKind } from './connection/fetch-snapshot';
import { RunlightClientError } from './errors/runlight-client-error';

/** One answer to a tool approval request (`POST …/runs/:id/approvals`). */
export interface ApprovalAnswer {
  approvalId: string;
  approved: boolean;
  /** Shown to the model with a denial (or an approval). */
  reason?: string;
}

export interface RunControlsContext {
  baseUrl: string;
  fetch: typeof globalThis.fetch;
  requestInit: () => Promise<RequestInit>;
}

/** The server answers 1–100 approvals per request (`ApprovalsBodySchema`). */
const MAX_APPROVALS = 100;

function checkApprovals(runId: string, approvals: readonly ApprovalAnswer[]): void {
  const invalid = (field: string, message: string) =>
    new RunlightClientError('invalid-request', `Approvals for run ${runId}: ${message}`, { field });
  if (approvals.length === 0 || approvals.length > MAX_APPROVALS) {
    throw invalid('approvals', `1 to ${MAX_APPROVALS} answers, not ${approvals.length}`);
  }
  approvals.forEach((answer, index) => {
    if (typeof answer.approvalId !== 'string' || answer.approvalId.length === 0) {
      throw invalid(`approvals.${index}.approvalId`, 'an approval id is a non-empty string');
    }
    if (typeof answer.approved !== 'boolean') {
      throw invalid(`approvals.${index}.approved`, 'approved is true or false');
    }
    if (answer.reason !== undefined && typeof answer.reason !== 'string') {
      throw invalid(`approvals.${index}.reason`, 'a reason is a string');
    }
  });
}

/** The server's error code in a JSON error body (`{ error: { code } }`), if any. */
async function codeOf(response: Response): Promise<string | undefined> {
  try {
    const body = (await response.json()) as { error?: { code?: unknown } };
    return typeof body.error?.code === 'string' ? body.error.code : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `POST {baseUrl}/runs/:id/{action}` with the client's headers and credentials; resolves on
 * `202`. Throws `RunlightClientError`: `invalid-request` (checked before sending), `network`,
 * `unauthorized` (401/403), `run-not-found` (404), `http` (any other status; `code` holds the
 * server's error code, e.g. `not_awaiting_approval`).
 */
export async function postRunControl(
  context: RunControlsContext,
  runId: string,
  action: 'cancel' | 'approvals',
  body: object,
): Promise<void> {
  if (!RunIdSchema.safeParse(runId).success) {
    throw new RunlightClientError('invalid-request', `${JSON.stringify(runId)} is not a run id`, {
      field: 'runId',
    });
  }
  const url = `${context.baseUrl}/runs/${encodeURIComponent(runId)}/${action}`;
  const init = await context.requestInit();
  const headers = new Headers(init.headers);
  headers.set('content-type', 'application/json');
  headers.set('accept', 'application/json');
  let response: Response;
  try {
    response = await context.fetch(url, {
      ...init,
      method: 'POST',
      headers,
      body: JSON.stringify(body),
    });
  } catch (cause) {
    throw new RunlightClientError('network', `POST ${action} of run ${runId} failed`, { cause });
  }
  if (response.ok) {
    await response.body?.cancel().catch(() => {});
    return;
  }
  const code = await codeOf(response);
  throw new RunlightClientError(
    httpErrorKind(response.status),
    `POST ${action} of run ${runId} answered HTTP ${response.status}${code ? ` (${code})` : ''}`,
    { status: response.status, ...(code ? { code } : {}) },
  );
}

/** Checks the answers, then `POST …/runs/:id/approvals` `{ approvals }`. */
export function postApprovals(
  context: RunControlsContext,
  runId: string,
  approvals: readonly ApprovalAnswer[],
): Promise<void> {
  try {
    checkApprovals(runId, approvals);
  } catch (error) {
    return Promise.reject(error);
  }
  const body = approvals.map(({ approvalId, approved, reason }) => ({
    approvalId,
    approved,
    ...(reason === undefined ? {} : { reason }),
  }));
  return postRunControl(context, runId, 'approvals', { approvals: body });
}
