import { safeParseRunEventRef } from '@runlight/protocol';
import type { EventSourceMessage } from 'eventsource-parser';
import { RunlightClientError } from '../errors/runlight-client-error';
import type { RunStoreContext } from '../run-store-context';
import { httpErrorKind } from './fetch-snapshot';

/**
 * Follows one `event-ref` message: the server stored a durable event larger than its
 * `maxEventBytes` and sent this reference in its place, so the client fetches
 * `GET {baseUrl}/runs/:id/events/:revision` and hands back the message the stream would have
 * carried — the event's JSON, its type, the reference's `id` — to be validated and applied
 * exactly like an inline one (SPEC.md rule 4), in its place before anything after it.
 *
 * Throws `RunlightClientError`: `invalid-event` / `run-mismatch` for a reference that does not
 * parse or names another run, the HTTP kinds for a refused fetch, `network` when it fails. The
 * connection then ends and resumes from the cursor before the reference.
 *
 * @example
 * const message = await followEventRef(context, 'run-1', refMessage, signal);
 */
export async function followEventRef(
  context: Pick<RunStoreContext, 'baseUrl' | 'fetch' | 'requestInit'>,
  runId: string,
  message: EventSourceMessage,
  signal: AbortSignal,
): Promise<EventSourceMessage> {
  let data: unknown;
  try {
    data = JSON.parse(message.data);
  } catch (cause) {
    throw new RunlightClientError('malformed-json', 'The data of an "event-ref" is not JSON', {
      field: 'data',
      cause,
    });
  }
  const parsed = safeParseRunEventRef(data);
  if (!parsed.success) {
    throw new RunlightClientError('invalid-event', `Invalid "event-ref": ${parsed.error.message}`, {
      field: parsed.error.issues[0]?.path ?? 'data',
      cause: parsed.error,
    });
  }
  const ref = parsed.data;
  if (ref.runId !== runId) {
    throw new RunlightClientError(
      'run-mismatch',
      `An event-ref of run ${ref.runId} arrived on run ${runId}`,
      { field: 'runId' },
    );
  }
  const url = `${context.baseUrl}/runs/${encodeURIComponent(runId)}/events/${ref.revision}`;
  let response: Response;
  let text: string;
  try {
    const init = await context.requestInit();
    const headers = new Headers(init.headers);
    headers.set('accept', 'application/json');
    response = await context.fetch(url, { ...init, headers, signal });
    text = await response.text();
  } catch (cause) {
    if (signal.aborted) throw cause;
    throw new RunlightClientError(
      'network',
      `Fetching event ${ref.revision} of run ${runId} failed`,
      {
        cause,
      },
    );
  }
  if (!response.ok) {
    throw new RunlightClientError(
      httpErrorKind(response.status),
      `Event ${ref.revision} of run ${runId} answered HTTP ${response.status}`,
      { status: response.status },
    );
  }
  return {
    event: ref.eventType,
    data: text,
    ...(message.id === undefined ? {} : { id: message.id }),
  };
}

/**
 * Applies one parsed burst in order with `apply` (which returns whether to reset), fetching
 * each `event-ref` with `follow` and applying the event in its place before anything after
 * it. Returns whether to reset.
 */
export async function applyInOrder(
  messages: EventSourceMessage[],
  apply: (messages: EventSourceMessage[]) => boolean,
  follow: (ref: EventSourceMessage) => Promise<EventSourceMessage>,
): Promise<boolean> {
  let start = 0;
  for (let index = 0; index < messages.length; index++) {
    if (messages[index]!.event !== 'event-ref') continue;
    if (index > start && apply(messages.slice(start, index))) return true;
    start = index + 1;
    if (apply([await follow(messages[index]!)])) return true;
  }
  if (start === 0) return apply(messages);
  return start < messages.length && apply(messages.slice(start));
}

/**
 * The dropped-twice rule (SPEC.md): a stream that broke off after it opened is counted at the
 * cursor it resumes from; the second drop in a row at the same cursor means resuming there
 * would loop (an event the client cannot take, a server that drops it at the same point), so
 * the connection reloads the snapshot instead and resumes from its revision.
 *
 * @example
 * if (drops.droppedTwice(cursorOf(state))) reloadFirst = true;
 */
export class DropsAtCursor {
  #cursor: string | null = null;
  #count = 0;

  /** Counts a drop at `cursor`; true on the second in a row there (and the count restarts). */
  droppedTwice(cursor: string | null): boolean {
    if (cursor !== this.#cursor) {
      this.#cursor = cursor;
      this.#count = 0;
    }
    this.#count++;
    if (this.#count < 2) return false;
    this.#cursor = null;
    this.#count = 0;
    return true;
  }
}
