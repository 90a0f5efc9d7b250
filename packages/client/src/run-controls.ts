import { type ApprovalAnswer, RunIdSchema, safeParseApprovalsBody } from '@runlight/protocol';
import { httpErrorKind } from './connection/fetch-snapshot';
import { withRequestTimeout } from './connection/reach/with-request-timeout';
import { RunlightClientError } from './errors/runlight-client-error';

/** One answer to a tool approval request (`POST …/runs/:id/approvals`). */
export type { ApprovalAnswer };

export interface RunControlsContext {
  baseUrl: string;
  fetch: typeof globalThis.fetch;
  requestInit: () => Promise<RequestInit>;
  /** No answer in this long (ms): the request is aborted and fails with `timeout`. */
  requestTimeoutMs: number;
}

/**
 * Checks the answers with the schema the server checks them with (`ApprovalsBodySchema`), so
 * what is refused here would be refused there; the error names the first offending field.
 */
function checkApprovals(runId: string, approvals: readonly ApprovalAnswer[]): ApprovalAnswer[] {
  // Only the three fields are sent (an app's answer objects may carry more of their own).
  const picked = Array.isArray(approvals)
    ? approvals.map((answer: ApprovalAnswer | null) => {
        if (typeof answer !== 'object' || answer === null) return answer;
        const { approvalId, approved, reason } = answer;
        return reason === undefined ? { approvalId, approved } : { approvalId, approved, reason };
      })
    : approvals;
  const parsed = safeParseApprovalsBody({ approvals: picked });
  if (parsed.success) return parsed.data.approvals;
  const issue = parsed.error.issues[0];
  const field = issue && issue.path !== '(root)' ? issue.path : 'approvals';
  throw new RunlightClientError(
    'invalid-request',
    `Approvals for run ${runId}: ${field} ${issue?.message ?? 'is invalid'}`,
    { field },
  );
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
 * `timeout` (no answer in `requestTimeoutMs`: it may still have been recorded), `unauthorized`
 * (401/403), `run-not-found` (404), `http` (any other status; `code` holds the server's error
 * code, e.g. `not_awaiting_approval`).
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
  let code: string | undefined;
  try {
    // The deadline covers the answer and its small error body, not just the headers.
    [response, code] = await withRequestTimeout(
      async (signal) => {
        const answer = await context.fetch(url, {
          ...init,
          method: 'POST',
          headers,
          body: JSON.stringify(body),
          signal,
        });
        if (answer.ok) {
          await answer.body?.cancel().catch(() => {});
          return [answer, undefined] as const;
        }
        return [answer, await codeOf(answer)] as const;
      },
      { timeoutMs: context.requestTimeoutMs, what: `POST ${action} of run ${runId}` },
    );
  } catch (cause) {
    if (RunlightClientError.isInstance(cause)) throw cause;
    throw new RunlightClientError('network', `POST ${action} of run ${runId} failed`, { cause });
  }
  if (response.ok) return;
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
  let body: ApprovalAnswer[];
  try {
    body = checkApprovals(runId, approvals);
  } catch (error) {
    return Promise.reject(error);
  }
  return postRunControl(context, runId, 'approvals', { approvals: body });
}
