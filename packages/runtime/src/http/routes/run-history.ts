import type { RunOperationEvent, RunOperationsPage } from '@runlight/protocol';
import type { AgentRuntimeStore } from '../../store/agent-runtime-store';
import { jsonError } from '../json-error';

/** Operations per page when the request names no `limit`. */
export const DEFAULT_HISTORY_PAGE_SIZE = 200;
/** The largest `limit` a request may ask for. */
export const MAX_HISTORY_PAGE_SIZE = 1000;

/** What the history route needs from the handlers around it. */
export interface RunHistoryContext {
  store: Pick<AgentRuntimeStore, 'readEvents'>;
  /** The handlers' answer to a store failure (404 for an unknown run, else a generic 500). */
  failure: (error: unknown, runId: string) => Response;
}

const COUNT = /^(0|[1-9][0-9]{0,15})$/;

/** `after` and `limit` of a history request, or the `400` that refuses them. */
export function parseHistoryQuery(
  url: URL,
): { after: number; limit: number } | { refused: Response } {
  const afterText = url.searchParams.get('after')?.trim() ?? '';
  const limitText = url.searchParams.get('limit')?.trim() ?? '';
  if (afterText !== '' && (!COUNT.test(afterText) || !Number.isSafeInteger(Number(afterText)))) {
    return {
      refused: jsonError(
        400,
        'bad_cursor',
        `after must be a revision (0 or more), not "${afterText.slice(0, 40)}"`,
      ),
    };
  }
  const limit = limitText === '' ? DEFAULT_HISTORY_PAGE_SIZE : Number(limitText);
  if (limitText !== '' && (!COUNT.test(limitText) || limit < 1 || limit > MAX_HISTORY_PAGE_SIZE)) {
    return {
      refused: jsonError(
        400,
        'bad_limit',
        `limit must be an integer from 1 to ${MAX_HISTORY_PAGE_SIZE}, not "${limitText.slice(0, 40)}"`,
      ),
    };
  }
  return { after: afterText === '' ? 0 : Number(afterText), limit };
}

/**
 * `GET …/runs/:id/operations?after=<revision>&limit=<n>` → `RunOperationsPage` JSON: the
 * run's durable `run-operation` events after `after`, at most `limit` (default 200, at most
 * 1000), in revision order, with the original server timestamps.
 *
 * It reads the store's event log and keeps the operation events; a store that filters by type
 * (a driver query) would read less — noted as a later improvement. The run's `revision` in the
 * page is the highest durable revision the log held when it was read, so a client knows which
 * revisions the page covers even when none of them is an operation.
 *
 * @example
 * const response = await runHistoryRoute({ store, failure }, request, 'run-1');
 */
export async function runHistoryRoute(
  context: RunHistoryContext,
  request: Request,
  runId: string,
): Promise<Response> {
  const query = parseHistoryQuery(new URL(request.url));
  if ('refused' in query) return query.refused;
  let events: Awaited<ReturnType<RunHistoryContext['store']['readEvents']>>;
  try {
    events = await context.store.readEvents(runId, { afterRevision: query.after });
  } catch (error) {
    return context.failure(error, runId);
  }
  const operations: RunOperationEvent[] = [];
  let nextAfter: number | null = null;
  let revision = query.after;
  for (const event of events) {
    if (event.type !== 'run-operation') {
      revision = Math.max(revision, event.revision);
      continue;
    }
    if (operations.length === query.limit) {
      // There is more: the page covers everything up to its last operation.
      nextAfter = operations.at(-1)!.revision;
      revision = nextAfter;
      break;
    }
    operations.push(event);
    revision = Math.max(revision, event.revision);
  }
  const body: RunOperationsPage = { runId, operations, nextAfter, revision };
  return Response.json(body, { headers: { 'Cache-Control': 'no-store' } });
}
