import { type RunSnapshot, safeParseServedRunSnapshot } from '@runlight/protocol';
import { RunlightClientError } from '../errors/runlight-client-error';

/** A snapshot as loaded, with the clock offset estimated from its round trip. */
export interface SnapshotLoad {
  /** The snapshot body; validated again by the store, so a host cache may hold it raw. */
  snapshot: unknown;
  /** `serverClock - clientClock` in ms, or `null` when the answer had no `serverTime`. */
  clockOffsetMs?: number | null;
}

export interface LoadedSnapshot extends SnapshotLoad {
  snapshot: RunSnapshot;
  clockOffsetMs: number | null;
}

export interface FetchSnapshotContext {
  baseUrl: string;
  fetch: typeof globalThis.fetch;
  now: () => number;
  /** Headers and credentials of each request (the client's `headers` is called every time). */
  requestInit?: () => Promise<RequestInit>;
}

/** The error kind of a non-2xx answer: 401/403 `unauthorized`, 404 `run-not-found`, else `http`. */
export function httpErrorKind(status: number): 'unauthorized' | 'run-not-found' | 'http' {
  if (status === 401 || status === 403) return 'unauthorized';
  return status === 404 ? 'run-not-found' : 'http';
}

/**
 * `GET {baseUrl}/runs/:id`, validated with the protocol schema. The clock offset is the
 * server's `serverTime` minus the midpoint of the request on the client clock — the estimate
 * is off by at most half the round trip. Throws `RunlightClientError` (`run-not-found`,
 * `http`, `malformed-json`, `invalid-snapshot`, `run-mismatch`, `network`).
 *
 * @example
 * const { snapshot, clockOffsetMs } = await fetchRunSnapshot(context, 'run-1');
 */
export async function fetchRunSnapshot(
  context: FetchSnapshotContext,
  runId: string,
  options: { signal?: AbortSignal } = {},
): Promise<LoadedSnapshot> {
  const url = `${context.baseUrl}/runs/${encodeURIComponent(runId)}`;
  const sentAt = context.now();
  let response: Response;
  let text: string;
  try {
    const init = (await context.requestInit?.()) ?? {};
    const headers = new Headers(init.headers);
    headers.set('accept', 'application/json');
    response = await context.fetch(url, {
      ...init,
      headers,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    text = await response.text();
  } catch (cause) {
    if (options.signal?.aborted) throw cause;
    throw new RunlightClientError('network', `Loading the snapshot of run ${runId} failed`, {
      cause,
    });
  }
  const receivedAt = context.now();
  if (!response.ok) {
    const kind = httpErrorKind(response.status);
    throw new RunlightClientError(
      kind,
      `Loading the snapshot of run ${runId} answered HTTP ${response.status}${errorCode(text)}`,
      { status: response.status },
    );
  }
  const parsed = validateSnapshot(parseJson(text), runId);
  const { serverTime } = parsed;
  const clockOffsetMs =
    serverTime === undefined ? null : Date.parse(serverTime) - (sentAt + receivedAt) / 2;
  return { snapshot: parsed, clockOffsetMs };
}

/** Parses a JSON body or throws `malformed-json`. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new RunlightClientError('malformed-json', 'The snapshot body is not valid JSON', {
      cause,
    });
  }
}

/**
 * Validates a snapshot at the trust boundary; throws `invalid-snapshot` (naming the first
 * offending field) or `run-mismatch`.
 */
export function validateSnapshot(raw: unknown, runId: string): RunSnapshot {
  const parsed = safeParseServedRunSnapshot(raw);
  if (!parsed.success) {
    const field = parsed.error.issues[0]?.path;
    throw new RunlightClientError('invalid-snapshot', parsed.error.message, {
      ...(field === undefined ? {} : { field }),
      cause: parsed.error,
    });
  }
  if (parsed.data.run.id !== runId) {
    throw new RunlightClientError(
      'run-mismatch',
      `A snapshot of run ${parsed.data.run.id} arrived for run ${runId}`,
      { field: 'run.id' },
    );
  }
  return parsed.data;
}

function errorCode(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { code?: unknown } };
    return typeof body.error?.code === 'string' ? ` (${body.error.code})` : '';
  } catch {
    return '';
  }
}
