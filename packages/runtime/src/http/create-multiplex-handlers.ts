import { RunIdSchema, type RunSnapshot } from '@runlight/protocol';
import { RunNotFoundError } from '../errors/run-not-found-error';
import type { RunEventSource } from '../events/event-hub';
import type { AgentRuntimeStore } from '../store/agent-runtime-store';
import {
  createAccessGate,
  optionalAccessPolicy,
  type RouterAccess,
  type RunAccessPolicy,
  refusalOf,
} from './access/access-policy';
import { DEFAULT_POLICY_CONCURRENCY, mapBounded } from './access/map-bounded';
import { type OwnPolicy, ownPolicyOf, type RunSnapshotResponse } from './create-run-handlers';
import { INTERNAL_ERROR_MESSAGE, jsonError } from './json-error';
import { BadCursorError } from './streams/bad-cursor-error';
import { MultiplexedEventStream, type RunSubscription } from './streams/multiplexed-event-stream';
import { publicSnapshot } from './streams/public-form';
import { parseRunCursor, START_CURSOR } from './streams/run-cursor';
import { DEFAULT_MAX_EVENT_BYTES } from './streams/sse-event-size';

export interface MultiplexHandlersOptions {
  store: Pick<AgentRuntimeStore, 'getSnapshot' | 'readEvents' | 'now'>;
  runtime: RunEventSource;
  /** Interval of the one `: ping` of an idle multiplexed stream. Default 15 000 ms. */
  heartbeatMs?: number;
  /** Most runs one request may name. Default 100. */
  maxRuns?: number;
  /** See `RunHandlersOptions.maxQueuedBytes`; for the whole connection. Default 8 MiB. */
  maxQueuedBytes?: number;
  /**
   * See `RunHandlersOptions.maxEventBytes`: a larger durable event travels as an `event-ref`
   * (the client fetches it from the per-run route). Default 1 MiB.
   */
  maxEventBytes?: number;
  /**
   * See `RunHandlersOptions.exposeInternals` (give both handlers the same value): batched
   * snapshots and multiplexed events with `owner` and `fencingToken` as stored. Default `false`.
   */
  exposeInternals?: boolean;
  /**
   * The same `authorize` as the run handlers (or `'public'`), asked `read` for every run named:
   * a refused run (`false`: 403 `forbidden`; a `Response`: its status; a throw: 500 `internal`)
   * is refused for itself only, the others stream. `createRunRouter({ authorize })` passes its
   * policy with each call (asked first; both must allow). **Without either, every run is
   * refused `403`.**
   */
  authorize?: RunAccessPolicy;
  /** See `RunHandlersOptions.reauthorizeMs`: each run's access is re-asked this often. */
  reauthorizeMs?: number;
  now?: () => Date;
  onError?: (error: unknown) => void;
  /**
   * How many policy calls one request has in flight at once while it asks about its runs
   * (`run-events`, `runs?ids=`). Default 32 (`DEFAULT_POLICY_CONCURRENCY`): 100 runs under a
   * 300 ms policy answer after about 1.2 s, not 30 s, without 100 calls at once.
   */
  policyConcurrency?: number;
}

/** `access`: the router's policy, passed with every call (see `RunHandlers`). */
export interface MultiplexHandlers {
  /** `GET …/run-events?run=<id>@<cursor>&run=…` → one `text/event-stream` for all of them. */
  events(request: Request, access?: RouterAccess): Promise<Response>;
  /** `GET …/runs?ids=<id>,<id>` → `{ snapshots, missing, forbidden, errors, serverTime }`. */
  snapshots(request: Request, access?: RouterAccess): Promise<Response>;
  /** See `RunHandlers.ownPolicy`. */
  readonly ownPolicy?: OwnPolicy;
}

/**
 * A run of a batch that could not be read (e.g. its stored record does not parse): the other
 * runs of the batch still load. `message` is generic — the cause goes to `onError`.
 */
export interface RunSnapshotBatchError {
  runId: string;
  status: 500;
  code: 'internal';
  message: string;
}

/**
 * The batched snapshot answer: the runs found (in request order), the ids not found, the ids
 * the policy refused, and the runs that failed to load (one broken run never fails the batch).
 */
export interface RunSnapshotBatchResponse {
  snapshots: RunSnapshotResponse[];
  missing: string[];
  forbidden: string[];
  errors: RunSnapshotBatchError[];
  serverTime: string;
}

const SSE_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-store, no-transform',
  'X-Accel-Buffering': 'no',
};

/** Valid, distinct run ids, or the 400 answer naming what is wrong. */
function checkIds(ids: string[], maxRuns: number): Response | null {
  if (ids.length === 0) return jsonError(400, 'bad_run_id', 'Name at least one run');
  if (ids.length > maxRuns) {
    return jsonError(400, 'bad_run_id', `At most ${maxRuns} runs per request`);
  }
  for (const id of ids) {
    const parsed = RunIdSchema.safeParse(id);
    if (!parsed.success) {
      return jsonError(
        400,
        'bad_run_id',
        `Run id ${parsed.error.issues[0]?.message ?? 'is invalid'}`,
      );
    }
  }
  return null;
}

/**
 * Handlers for a page that shows many runs: one multiplexed event stream for all of them (each
 * run keeps its own cursor, resume and `reset` — see `MultiplexedEventStream`) and one batched
 * snapshot request. A browser on HTTP/1.1 allows six connections per origin; with these, twenty
 * visible runs cost one.
 *
 * Subscription syntax: `?run=<id>@<cursor>` per run (`@` is in neither alphabet; no cursor means
 * `"0"`). A malformed cursor refuses that run (`run-error` 400 `bad_cursor`), not the request.
 *
 * @example
 * const many = createMultiplexHandlers({ store, runtime });
 * // GET /api/run-events?run=a@3&run=b@7:5:2   GET /api/runs?ids=a,b
 */
export function createMultiplexHandlers(options: MultiplexHandlersOptions): MultiplexHandlers {
  const { store, runtime } = options;
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  const maxRuns = options.maxRuns ?? 100;
  const maxQueuedBytes = options.maxQueuedBytes ?? 8 * 1024 * 1024;
  const maxEventBytes = options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES;
  const exposeInternals = options.exposeInternals === true;
  // The clock that decides the store's leases (the database's), so a page compares a lease
  // expiry with the time it was written in, whatever this process's wall clock says.
  const now = async () =>
    options.now?.() ?? (await store.now?.().catch(() => undefined)) ?? new Date();
  const onError = options.onError ?? (() => {});
  const policyConcurrency = options.policyConcurrency ?? DEFAULT_POLICY_CONCURRENCY;
  const own = optionalAccessPolicy(options.authorize, 'createMultiplexHandlers');
  const gate = createAccessGate({
    own,
    reauthorizeMs: options.reauthorizeMs,
    onError,
    where: 'createMultiplexHandlers',
  });
  /** `null` when `runId` may be read, else the status and code that refuse it. */
  const refusal = async (
    request: Request,
    runId: string,
    access: RouterAccess | undefined,
  ): Promise<{ status: number; code: string } | null> => {
    const refused = await gate.ask({ request, runId, action: 'read' }, access);
    return refused === null ? null : refusalOf(refused);
  };

  return {
    async events(request, access) {
      const entries = new URL(request.url).searchParams.getAll('run');
      const byId = new Map<string, string>();
      for (const entry of entries) {
        const at = entry.indexOf('@');
        byId.set(at < 0 ? entry : entry.slice(0, at), at < 0 ? '' : entry.slice(at + 1));
      }
      const invalid = checkIds([...byId.keys()], maxRuns);
      if (invalid) return invalid;
      const stream = new MultiplexedEventStream({
        store,
        source: runtime,
        heartbeatMs,
        maxQueuedBytes,
        maxEventBytes,
        exposeInternals,
        ...(request.signal ? { signal: request.signal } : {}),
        onError,
      });
      // Every run's cursor first, then the policy for all of them at once (bounded): the
      // first byte comes after about one policy latency, not one per run.
      const wanted: RunSubscription[] = [];
      for (const [runId, text] of byId) {
        try {
          wanted.push({ runId, cursor: text === '' ? START_CURSOR : parseRunCursor(text) });
        } catch (error) {
          if (!BadCursorError.isInstance(error)) throw error;
          stream.refuse({ runId, status: 400, code: 'bad_cursor' });
        }
      }
      const verdicts = await mapBounded(wanted, policyConcurrency, (subscription) =>
        refusal(request, subscription.runId, access),
      );
      wanted.forEach((subscription, index) => {
        const refused = verdicts[index];
        if (refused) {
          stream.refuse({ runId: subscription.runId, ...refused });
          return;
        }
        // Each run's access is re-asked while it streams; a revoked run ends alone.
        const reauthorize = gate.reauthorization(request, subscription.runId, access);
        stream.add({ ...subscription, ...(reauthorize ? { reauthorize } : {}) });
      });
      stream.seal();
      return new Response(stream.readable, { headers: SSE_HEADERS });
    },

    async snapshots(request, access) {
      const text = new URL(request.url).searchParams.get('ids') ?? '';
      const ids = [...new Set(text.split(',').filter((id) => id !== ''))];
      const invalid = checkIds(ids, maxRuns);
      if (invalid) return invalid;
      try {
        const body: RunSnapshotBatchResponse = {
          snapshots: [],
          missing: [],
          forbidden: [],
          errors: [],
          serverTime: '',
        };
        const results = await mapBounded(
          ids,
          policyConcurrency,
          async (runId): Promise<RunSnapshot | 'missing' | 'forbidden' | 'error'> => {
            if ((await refusal(request, runId, access)) !== null) return 'forbidden';
            try {
              return await store.getSnapshot(runId);
            } catch (error) {
              if (RunNotFoundError.isInstance(error)) return 'missing';
              // One run that cannot be read is an error entry; the others still load.
              onError(error);
              return 'error';
            }
          },
        );
        // A request refused for every run never touches the store, not even for its clock
        // (no lease is shown to compare with it).
        const touched = results.some((result) => result !== 'forbidden');
        const serverTime = (touched ? await now() : new Date()).toISOString();
        results.forEach((result, index) => {
          const runId = ids[index]!;
          if (result === 'missing') body.missing.push(runId);
          else if (result === 'forbidden') body.forbidden.push(runId);
          else if (result === 'error') {
            body.errors.push({
              runId,
              status: 500,
              code: 'internal',
              message: INTERNAL_ERROR_MESSAGE,
            });
          } else {
            const snapshot = exposeInternals ? result : publicSnapshot(result);
            body.snapshots.push({ ...snapshot, serverTime });
          }
        });
        body.serverTime = serverTime;
        return Response.json(body, { headers: { 'Cache-Control': 'no-store' } });
      } catch (error) {
        onError(error);
        return jsonError(500, 'internal', INTERNAL_ERROR_MESSAGE);
      }
    },

    ownPolicy: ownPolicyOf(own),
  };
}
