import { isTerminalStatus, RunIdSchema, type RunSnapshot } from '@runlight/protocol';
import { RunNotFoundError } from '../errors/run-not-found-error';
import type { RunEventSource } from '../events/event-hub';
import type { AgentRuntimeStore } from '../store/agent-runtime-store';
import { BadCursorError } from './bad-cursor-error';
import { isClientGone } from './client-gone';
import { INTERNAL_ERROR_MESSAGE, jsonError } from './json-error';
import { parseRunCursor, type RunCursor, START_CURSOR } from './run-cursor';
import { RunEventStream } from './run-event-stream';
import { runHistoryRoute } from './run-history';

export interface RunHandlersOptions {
  store: Pick<AgentRuntimeStore, 'getSnapshot' | 'readEvents'>;
  /** Where live events are followed: the runtime, or its `RunEventHub`. */
  runtime: RunEventSource;
  /** Interval of the `: ping` comment on an idle event stream. Default 15 000 ms. */
  heartbeatMs?: number;
  /** The server's wall clock for `serverTime`. Injectable for tests. */
  now?: () => Date;
  /**
   * A client whose unread stream output exceeds this many bytes is disconnected (it resumes
   * from its cursor) instead of being buffered without bound. Default 8 MiB.
   */
  maxQueuedBytes?: number;
  /** Receives internal errors (for server logs); the response only says "internal". */
  onError?: (error: unknown) => void;
}

/** `RunSnapshot` with the server's wall clock at answer time, for clock-offset estimates. */
export type RunSnapshotResponse = RunSnapshot & { serverTime: string };

export interface RunHandlers {
  /** `GET …/runs/:id` → `RunSnapshotResponse` JSON. */
  snapshot(request: Request, runId: string): Promise<Response>;
  /** `GET …/runs/:id/events` → `text/event-stream` (`204` once an ended run has nothing more). */
  events(request: Request, runId: string): Promise<Response>;
  /** `GET …/runs/:id/operations?after=&limit=` → `RunOperationsPage` JSON (run-history.ts). */
  history(request: Request, runId: string): Promise<Response>;
}

const SSE_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-store, no-transform',
  // Tells nginx-style proxies not to buffer the stream.
  'X-Accel-Buffering': 'no',
};

/** Validates a run id from a URL; `null` when it is fine. */
export function checkRunId(runId: string): Response | null {
  const parsed = RunIdSchema.safeParse(runId);
  if (parsed.success) return null;
  return jsonError(400, 'bad_run_id', `Run id ${parsed.error.issues[0]?.message ?? 'is invalid'}`);
}

/** The resume cursor of a request: `Last-Event-ID` wins over `?after=`; empty counts as absent. */
function cursorText(request: Request): string | null {
  const header = request.headers.get('last-event-id')?.trim();
  if (header) return header;
  const query = new URL(request.url).searchParams.get('after')?.trim();
  return query ? query : null;
}

/**
 * Web-standard `Request → Response` handlers for one run's snapshot and its event stream. They
 * mount in Hono, Next.js route handlers, a Vite dev server or `node:http` (`toNodeListener`).
 *
 * Wire format of `events` (`text/event-stream`), one message per event:
 * `event: <RunEvent.type>`, `id: <cursor>` (see `RunCursor`), `data: <RunEvent JSON>`; a
 * `reset` message (no id) tells the client to reload the snapshot; `: ping` comments keep an idle
 * stream open; the stream ends after a terminal run's last durable event.
 *
 * @example
 * const handlers = createRunHandlers({ store, runtime: hub });
 * // Next.js 15+: app/api/runs/[id]/events/route.ts (`params` is a Promise; or mount
 * // `createRunRouter` in app/api/runs/[...path]/route.ts, which validates the id)
 * export async function GET(request: Request, { params }: { params: Promise<{ id: string }> }) {
 *   return handlers.events(request, (await params).id);
 * }
 */
export function createRunHandlers(options: RunHandlersOptions): RunHandlers {
  const { store, runtime } = options;
  const now = options.now ?? (() => new Date());
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  const maxQueuedBytes = options.maxQueuedBytes ?? 8 * 1024 * 1024;
  const onError = options.onError ?? (() => {});

  const failure = (error: unknown, runId: string, request?: Request): Response => {
    if (RunNotFoundError.isInstance(error)) {
      return jsonError(404, 'run_not_found', `Run ${runId} does not exist`);
    }
    // A client that went away is an ordinary end, not a server error (client-gone.ts).
    if (!isClientGone(error, request?.signal)) onError(error);
    return jsonError(500, 'internal', INTERNAL_ERROR_MESSAGE);
  };

  return {
    async snapshot(_request, runId) {
      const invalid = checkRunId(runId);
      if (invalid) return invalid;
      try {
        const snapshot = await store.getSnapshot(runId);
        const body: RunSnapshotResponse = { ...snapshot, serverTime: now().toISOString() };
        return Response.json(body, { headers: { 'Cache-Control': 'no-store' } });
      } catch (error) {
        return failure(error, runId);
      }
    },

    async events(request, runId) {
      const invalid = checkRunId(runId);
      if (invalid) return invalid;
      let cursor: RunCursor = START_CURSOR;
      const text = cursorText(request);
      if (text !== null) {
        try {
          cursor = parseRunCursor(text);
        } catch (error) {
          if (!BadCursorError.isInstance(error)) throw error;
          return jsonError(400, 'bad_cursor', error.message);
        }
      }
      // Subscribe before reading the store: whatever is published meanwhile is queued.
      const stream = new RunEventStream({
        runId,
        store,
        source: runtime,
        cursor,
        heartbeatMs,
        maxQueuedBytes,
        signal: request.signal,
        onError,
      });
      let snapshot: RunSnapshot;
      try {
        snapshot = await store.getSnapshot(runId);
      } catch (error) {
        stream.dispose();
        return failure(error, runId, request);
      }
      if (isTerminalStatus(snapshot.run.status) && cursor.revision >= snapshot.revision) {
        // Nothing will ever follow: 204 is how a native EventSource is told to stop.
        stream.dispose();
        return new Response(null, { status: 204, headers: { 'Cache-Control': 'no-store' } });
      }
      stream.start(snapshot);
      return new Response(stream.readable, { headers: SSE_HEADERS });
    },

    async history(request, runId) {
      const invalid = checkRunId(runId);
      if (invalid) return invalid;
      // Access seam: with `authorize` (issue 13) this asks `refusal(request, runId, 'history')`
      // first, as every other route does.
      return runHistoryRoute(
        { store, failure: (error, id) => failure(error, id, request) },
        request,
        runId,
      );
    },
  };
}
