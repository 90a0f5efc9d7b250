import { RunIdSchema } from '@runlight/protocol';
import { RunlightTransportError } from './errors/runlight-transport-error';

/** One answer to a tool approval request, as `POST …/runs/:id/approvals` takes it. */
export interface ApprovalAnswer {
  approvalId: string;
  approved: boolean;
  reason?: string;
}

/** Headers, credentials and abort signal of one POST. */
export interface PostInit {
  headers?: HeadersInit;
  credentials?: RequestCredentials;
  signal?: AbortSignal;
}

async function post(
  fetch: typeof globalThis.fetch,
  url: string,
  body: unknown,
  init: PostInit = {},
): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set('content-type', 'application/json');
  try {
    return await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
      ...(init.credentials ? { credentials: init.credentials } : {}),
      ...(init.signal ? { signal: init.signal } : {}),
    });
  } catch (cause) {
    if (init.signal?.aborted) throw cause;
    throw new RunlightTransportError('network', `POST ${url} failed`, { cause });
  }
}

/**
 * Calls the application's start route and reads `{ runId }` from its JSON answer (validated
 * with `RunIdSchema`). Throws `RunlightTransportError` (`start`, `network`).
 */
export async function postStart(
  fetch: typeof globalThis.fetch,
  url: string,
  body: unknown,
  init: PostInit,
): Promise<{ runId: string }> {
  const response = await post(fetch, url, body, init);
  if (!response.ok) {
    await response.body?.cancel().catch(() => {});
    throw new RunlightTransportError('start', `The start route answered HTTP ${response.status}`, {
      status: response.status,
    });
  }
  let json: unknown;
  try {
    json = await response.json();
  } catch (cause) {
    throw new RunlightTransportError('start', 'The start route answered no JSON', { cause });
  }
  return { runId: parseRunId(json) };
}

/** `{ runId }` from an untrusted value; throws `RunlightTransportError('start')`. */
export function parseRunId(value: unknown): string {
  const runId = (value as { runId?: unknown } | null)?.runId;
  const parsed = RunIdSchema.safeParse(runId);
  if (!parsed.success) {
    throw new RunlightTransportError('start', 'The start route answered no valid { runId }');
  }
  return parsed.data;
}

/** `POST {baseUrl}/runs/:id/cancel` → 202. Throws `RunlightTransportError` (`control`, `network`). */
export async function postCancel(
  fetch: typeof globalThis.fetch,
  baseUrl: string,
  runId: string,
  init: PostInit = {},
) {
  const url = `${baseUrl}/runs/${encodeURIComponent(runId)}/cancel`;
  await expectAccepted(await post(fetch, url, {}, init), 'cancel', runId);
}

/**
 * `POST {baseUrl}/runs/:id/approvals` with `{ approvals }` → 202. Throws
 * `RunlightTransportError` (`control`, `network`).
 */
export async function postApprovals(
  fetch: typeof globalThis.fetch,
  baseUrl: string,
  runId: string,
  approvals: readonly ApprovalAnswer[],
  init: PostInit = {},
) {
  const url = `${baseUrl}/runs/${encodeURIComponent(runId)}/approvals`;
  await expectAccepted(await post(fetch, url, { approvals }, init), 'approvals', runId);
}

async function expectAccepted(response: Response, what: string, runId: string): Promise<void> {
  await response.body?.cancel().catch(() => {});
  if (response.ok) return;
  throw new RunlightTransportError(
    'control',
    `The ${what} route of run ${runId} answered HTTP ${response.status}`,
    { status: response.status },
  );
}
