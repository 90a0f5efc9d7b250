import {
  isTerminalStatus,
  type PublicRunSnapshot,
  RunIdSchema,
  type RunSnapshot,
} from '@runlight/protocol';
import { RunNotFoundError } from '../errors/run-not-found-error';
import type { RunEventSource } from '../events/event-hub';
import type { AgentRuntimeStore } from '../store/agent-runtime-store';
import {
  createAccessGate,
  optionalAccessPolicy,
  type RouterAccess,
  type RunAccessPolicy,
} from './access/access-policy';
import type { RunAction } from './access/authorize';
import { INTERNAL_ERROR_MESSAGE, jsonError } from './json-error';
import {
  approveRunRoute,
  cancelRunRoute,
  type RunControl,
  type RunControlContext,
  type StartRun,
  startRunRoute,
} from './routes/run-control';
import { runHistoryRoute } from './routes/run-history';
import { BadCursorError } from './streams/bad-cursor-error';
import { isClientGone } from './streams/client-gone';
import { publicSnapshot } from './streams/public-form';
import { parseRunCursor, type RunCursor, START_CURSOR } from './streams/run-cursor';
import { runEventRoute } from './streams/run-event-reference';
import { RunEventStream } from './streams/run-event-stream';
import { SseBufferBudget } from './streams/sse-buffer-budget';
import { DEFAULT_MAX_EVENT_BYTES } from './streams/sse-event-size';

export interface RunHandlersOptions {
  store: Pick<
    AgentRuntimeStore,
    'getSnapshot' | 'readEvents' | 'getRun' | 'controlRequests' | 'now'
  >;
  /**
   * Where live events are followed: the runtime, or its `RunEventHub`. On a store with durable
   * control requests (`store.controlRequests`) the run-control routes (`cancel`, `approve`)
   * record them for the executing process and answer `202` once recorded; otherwise they need
   * the runtime (`cancelRun`, `resumeRun`) and without it answer `501 not_supported`.
   */
  runtime: RunEventSource & Partial<RunControl>;
  /**
   * Who may do what with which run, asked before anything is read or changed (see
   * `Authorize`), or `'public'` to serve every run to anyone on purpose. Prefer
   * `createRunRouter({ authorize })`, which covers every route it serves (the multiplexed ones
   * too) and hands its policy to these handlers with each call; when both are given the
   * router's is asked first and both must allow. **Without either, every route answers `403`**
   * (nothing is served by omission).
   */
  authorize?: RunAccessPolicy;
  /**
   * How often an open event stream re-asks `authorize` (`read`); a refusal ends it with an
   * `unauthorized` message. Default 60 000 ms; `0` turns re-checks off. A router's
   * `reauthorizeMs` wins for the requests it routes.
   */
  reauthorizeMs?: number;
  /**
   * Starts a run for `POST …/runs` (answered `201 { runId }` once the run exists). The app
   * supplies model, messages and tools, usually `runtime.startRun(...)` with fields of `body`;
   * return a `Response` to refuse. Without it the route is not served.
   */
  start?: StartRun;
  /** Largest accepted POST body, in bytes, counted while reading. Default 64 KiB. */
  maxBodyBytes?: number;
  /** Interval of the `: ping` comment on an idle event stream. Default 15 000 ms. */
  heartbeatMs?: number;
  /**
   * Wire coalescing: on the stream of a client that asked for it (`Accept: text/event-stream;
   * deltas=batched`, as `@runlight/client` does), a delta continuing a part already streaming
   * waits up to this many ms, and the deltas that waited travel as one `run-deltas` message.
   * The first delta of a run, a step or a part is never delayed. Default 0: off.
   */
  coalesceDeltasMs?: number;
  /**
   * The clock for `serverTime`. Injectable for tests; by default the store's (`store.now`: the
   * database's for `@runlight/store-postgres`), else the process's.
   */
  now?: () => Date;
  /**
   * A client whose unread stream output exceeds this many bytes is disconnected (it resumes
   * from its cursor) instead of being buffered without bound. Default 8 MiB.
   */
  maxQueuedBytes?: number;
  /**
   * Total unread bytes buffered for slow readers across every event stream of these handlers;
   * past it, each client with a backlog is dropped (its socket closed) at its next write and
   * resumes from its cursor. Default 64 MiB.
   */
  maxBufferedBytes?: number;
  /**
   * A client that has unread bytes and reads none of them for this long is dropped. Checked at
   * each heartbeat. Default 60 000 ms.
   */
  idleTimeoutMs?: number;
  /**
   * A durable event whose SSE message is larger than this many bytes is sent as an
   * `event-ref` message the client follows (`GET …/runs/:id/events/:revision`); a larger live
   * delta is not sent (the next assistant write holds it). Default 1 MiB
   * (`DEFAULT_MAX_EVENT_BYTES`): well under `maxQueuedBytes`, so one event can never be what
   * gets a client dropped.
   */
  maxEventBytes?: number;
  /** Receives internal errors (for server logs); the response only says "internal". */
  onError?: (error: unknown) => void;
  /**
   * Send each run's `owner` (`runtime-<HOSTNAME>-<pid>-…`) and `fencingToken` as stored, in
   * snapshots, events and `event-ref` fetches — for operator tools like the playground.
   * Default `false`: the public form (`PublicRunSnapshot`, `PublicRunEvent`): `owner` is an
   * opaque holder tag (null when nobody holds the run), no `fencingToken`; the stream drops a
   * previous owner's late deltas itself. Give `createMultiplexHandlers` the same value.
   */
  exposeInternals?: boolean;
}

/**
 * A snapshot with the server's wall clock at answer time, for clock-offset estimates: a
 * `PublicRunSnapshot` by default, a `RunSnapshot` with `exposeInternals`.
 */
export type RunSnapshotResponse = (RunSnapshot | PublicRunSnapshot) & { serverTime: string };

/**
 * The run routes' handlers. `access` is the router's policy (`createRunRouter` passes it with
 * every call); called without one, only the handlers' own `authorize` applies.
 */
export interface RunHandlers {
  /** `GET …/runs/:id` → `RunSnapshotResponse` JSON. */
  snapshot(request: Request, runId: string, access?: RouterAccess): Promise<Response>;
  /** `GET …/runs/:id/events` → `text/event-stream` (`204` once an ended run has nothing more). */
  events(request: Request, runId: string, access?: RouterAccess): Promise<Response>;
  /** `POST …/runs/:id/cancel` → `202 { runId }`. */
  cancel(request: Request, runId: string, access?: RouterAccess): Promise<Response>;
  /** `POST …/runs/:id/approvals` `{ approvals: [{ approvalId, approved, reason? }] }` → `202`. */
  approve(request: Request, runId: string, access?: RouterAccess): Promise<Response>;
  /** `POST …/runs` → `201 { runId }`; `null` when no `start` option was given. */
  start(request: Request, access?: RouterAccess): Promise<Response | null>;
  /**
   * `GET …/runs/:id/events/:revision` → the durable event's JSON: what a client fetches for an
   * `event-ref` message (run-event-reference.ts).
   */
  event(
    request: Request,
    runId: string,
    revision: string,
    access?: RouterAccess,
  ): Promise<Response>;
  /** Bytes buffered right now for slow readers, across every stream (for metrics). */
  bufferedBytes(): number;
  /** `GET …/runs/:id/operations?after=&limit=` → `RunOperationsPage` JSON (run-history.ts). */
  history(request: Request, runId: string, access?: RouterAccess): Promise<Response>;
  /**
   * Whether these handlers guard their routes themselves (`'authorize'`), serve them on purpose
   * (`'public'`), or rely on a router's policy (`'none'`). `createRunRouter` reads it to refuse a
   * `'public'` router over handlers of which only some guard themselves.
   */
  readonly ownPolicy?: OwnPolicy;
}

/** See `RunHandlers.ownPolicy`. */
export type OwnPolicy = 'authorize' | 'public' | 'none';

/** The `ownPolicy` of handlers made with `authorize: policy`. */
export function ownPolicyOf(policy: RunAccessPolicy | undefined): OwnPolicy {
  return policy === undefined ? 'none' : policy === 'public' ? 'public' : 'authorize';
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
  const exposeInternals = options.exposeInternals === true;
  // The clock that decides the store's leases (the database's), so a page compares a lease
  // expiry with the time it was written in, whatever this process's wall clock says.
  const now = async () =>
    options.now?.() ?? (await store.now?.().catch(() => undefined)) ?? new Date();
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  const coalesceDeltasMs = options.coalesceDeltasMs ?? 0;
  const maxQueuedBytes = options.maxQueuedBytes ?? 8 * 1024 * 1024;
  const onError = options.onError ?? (() => {});
  const budget = new SseBufferBudget(options.maxBufferedBytes ?? 64 * 1024 * 1024);
  const idleTimeoutMs = options.idleTimeoutMs ?? 60_000;
  const maxBodyBytes = options.maxBodyBytes ?? 64 * 1024;
  const maxEventBytes = options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES;
  if (!(maxEventBytes > 0))
    throw new TypeError(`maxEventBytes must be positive, not ${maxEventBytes}`);

  const own = optionalAccessPolicy(options.authorize, 'createRunHandlers');
  const gate = createAccessGate({
    own,
    reauthorizeMs: options.reauthorizeMs,
    onError,
    where: 'createRunHandlers',
  });
  /** The answer when `action` is refused (or a policy failed), `null` when allowed. */
  const refusal = (
    request: Request,
    runId: string,
    action: RunAction,
    access: RouterAccess | undefined,
  ): Promise<Response | null> => gate.ask({ request, runId, action }, access);

  const failure = (error: unknown, runId: string, request?: Request): Response => {
    if (RunNotFoundError.isInstance(error)) {
      return jsonError(404, 'run_not_found', `Run ${runId} does not exist`);
    }
    // A client that went away is an ordinary end, not a server error (client-gone.ts).
    if (!isClientGone(error, request?.signal)) onError(error);
    return jsonError(500, 'internal', INTERNAL_ERROR_MESSAGE);
  };

  const control: RunControlContext = {
    store,
    control: runtime,
    maxBodyBytes,
    failure,
    onError,
  };

  return {
    async snapshot(request, runId, access) {
      const invalid = checkRunId(runId);
      if (invalid) return invalid;
      const refused = await refusal(request, runId, 'read', access);
      if (refused) return refused;
      try {
        const snapshot = await store.getSnapshot(runId);
        const body: RunSnapshotResponse = {
          ...(exposeInternals ? snapshot : publicSnapshot(snapshot)),
          serverTime: (await now()).toISOString(),
        };
        return Response.json(body, { headers: { 'Cache-Control': 'no-store' } });
      } catch (error) {
        return failure(error, runId);
      }
    },

    async events(request, runId, access) {
      const invalid = checkRunId(runId);
      if (invalid) return invalid;
      const refused = await refusal(request, runId, 'read', access);
      if (refused) return refused;
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
        budget,
        idleTimeoutMs,
        maxEventBytes,
        exposeInternals,
        coalesceDeltasMs: acceptsDeltaBatches(request) ? coalesceDeltasMs : 0,
        signal: request.signal,
        onError,
        reauthorize: gate.reauthorization(request, runId, access),
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

    async event(request, runId, revision, access) {
      const invalid = checkRunId(runId);
      if (invalid) return invalid;
      const refused = await refusal(request, runId, 'read', access);
      if (refused) return refused;
      return runEventRoute(
        { store, exposeInternals, failure: (error, id) => failure(error, id, request) },
        runId,
        revision,
      );
    },

    async history(request, runId, access) {
      const invalid = checkRunId(runId);
      if (invalid) return invalid;
      const refused = await refusal(request, runId, 'history', access);
      if (refused) return refused;
      return runHistoryRoute(
        { store, failure: (error, id) => failure(error, id, request) },
        request,
        runId,
      );
    },

    async cancel(request, runId, access) {
      const invalid = checkRunId(runId);
      if (invalid) return invalid;
      const refused = await refusal(request, runId, 'cancel', access);
      if (refused) return refused;
      return cancelRunRoute(control, runId);
    },

    async approve(request, runId, access) {
      const invalid = checkRunId(runId);
      if (invalid) return invalid;
      const refused = await refusal(request, runId, 'approve', access);
      if (refused) return refused;
      return approveRunRoute(control, request, runId);
    },

    async start(request, access) {
      const { start } = options;
      if (!start) return null;
      const runId = `run-${crypto.randomUUID()}`;
      const refused = await refusal(request, runId, 'start', access);
      if (refused) return refused;
      return startRunRoute(control, start, request, runId);
    },

    bufferedBytes: () => budget.bufferedBytes,
    ownPolicy: ownPolicyOf(own),
  };
}

/** Whether the client takes `run-deltas` messages (`Accept: text/event-stream; deltas=batched`). */
function acceptsDeltaBatches(request: Request): boolean {
  return /\bdeltas=batched\b/.test(request.headers.get('accept') ?? '');
}
