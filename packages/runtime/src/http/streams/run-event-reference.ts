import type { AgentRuntimeStore } from '../../store/agent-runtime-store';
import { jsonError } from '../json-error';
import { publicEvent } from './public-form';

/** What the event-reference route needs from the handlers around it. */
export interface RunEventReferenceContext {
  store: Pick<AgentRuntimeStore, 'readEvents'>;
  /** The handlers' answer to a store failure (404 for an unknown run, else a generic 500). */
  failure: (error: unknown, runId: string) => Response;
  /** See `RunHandlersOptions.exposeInternals`: else the event's public form. */
  exposeInternals?: boolean;
}

const REVISION = /^[1-9][0-9]{0,15}$/;

/**
 * `GET …/runs/:id/events/:revision` → the durable event at `revision`, as JSON (a
 * `DurableRunEvent`, exactly as the event stream would have carried it). What a client fetches
 * for an `event-ref` message: an event above `maxEventBytes` is stored like any other but
 * sent on the stream as that reference, so no single SSE message outgrows what a client (or
 * the per-client cap) can take; a plain HTTP response of any size can.
 *
 * It reads the log from `revision` on and keeps the first event (a driver has no point read;
 * references are for the latest events, so little more is read). `400 bad_revision` for a
 * revision that is not a positive canonical integer, `404 event_not_found` past the log's head.
 *
 * @example
 * const response = await runEventRoute({ store, failure }, 'run-1', '12');
 */
export async function runEventRoute(
  context: RunEventReferenceContext,
  runId: string,
  revisionText: string,
): Promise<Response> {
  if (!REVISION.test(revisionText) || !Number.isSafeInteger(Number(revisionText))) {
    return jsonError(
      400,
      'bad_revision',
      `The event revision must be a positive integer, not "${revisionText.slice(0, 40)}"`,
    );
  }
  const revision = Number(revisionText);
  let events: Awaited<ReturnType<RunEventReferenceContext['store']['readEvents']>>;
  try {
    events = await context.store.readEvents(runId, { afterRevision: revision - 1 });
  } catch (error) {
    return context.failure(error, runId);
  }
  const event = events[0];
  if (event === undefined || event.revision !== revision) {
    return jsonError(404, 'event_not_found', `Run ${runId} has no event at revision ${revision}`);
  }
  return Response.json(context.exposeInternals ? event : publicEvent(event), {
    headers: { 'Cache-Control': 'no-store' },
  });
}
