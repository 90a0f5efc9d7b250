import { RunlightClientError } from '../errors/runlight-client-error';
import type { RunStoreContext } from '../run-store-context';
import { httpErrorKind } from './fetch-snapshot';

/** How `GET …/runs/:id/events` answered. */
export type OpenedStream =
  | { kind: 'open'; body: ReadableStream<Uint8Array> }
  /** `204`: the run has ended and nothing more will follow (the documented end). */
  | { kind: 'finished' }
  /** `400 bad_cursor` on a cursor built from the state: reload, then resume from R alone. */
  | { kind: 'reset' };

/**
 * Opens the event stream of `runId` at `cursor`. Throws a typed `RunlightClientError` for a
 * network failure, an HTTP error or a body that is not `text/event-stream`.
 */
export async function openEventStream(
  context: RunStoreContext,
  runId: string,
  cursor: string,
  withoutLiveCursor: boolean,
  signal: AbortSignal,
): Promise<OpenedStream> {
  const url = `${context.baseUrl}/runs/${encodeURIComponent(runId)}/events`;
  let response: Response;
  try {
    const init = await context.requestInit();
    const headers = new Headers(init.headers);
    // `deltas=batched`: this client applies `run-deltas` messages (a server that coalesces
    // sends them only to a client that says so; others ignore the parameter).
    headers.set('accept', 'text/event-stream; deltas=batched');
    headers.set('last-event-id', cursor);
    response = await context.fetch(url, { ...init, headers, signal });
  } catch (cause) {
    if (signal.aborted) throw cause;
    throw new RunlightClientError('network', `Connecting to the events of run ${runId} failed`, {
      cause,
    });
  }
  if (response.status === 204) {
    await response.body?.cancel().catch(() => {});
    return { kind: 'finished' };
  }
  if (
    response.status === 400 &&
    !withoutLiveCursor &&
    (await errorCodeOf(response)) === 'bad_cursor'
  ) {
    // The server refuses the cursor built from our state (e.g. a server of another version).
    await response.body?.cancel().catch(() => {});
    return { kind: 'reset' };
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => {});
    throw new RunlightClientError(
      httpErrorKind(response.status),
      `The events of run ${runId} answered HTTP ${response.status}`,
      { status: response.status },
    );
  }
  const type = response.headers.get('content-type') ?? '';
  if (!type.toLowerCase().startsWith('text/event-stream') || response.body === null) {
    await response.body?.cancel().catch(() => {});
    throw new RunlightClientError(
      'content-type',
      `The events of run ${runId} answered "${type || 'no content type'}", not text/event-stream`,
      { field: 'content-type' },
    );
  }
  return { kind: 'open', body: response.body };
}

/** The `error.code` of a JSON error body, or `undefined`. */
async function errorCodeOf(response: Response): Promise<unknown> {
  try {
    const body = (await response.clone().json()) as { error?: { code?: unknown } };
    return body?.error?.code;
  } catch {
    return undefined;
  }
}
