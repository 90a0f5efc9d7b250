import { RunlightClientError } from '../errors/runlight-client-error';
import type { SnapshotLoad } from './fetch-snapshot';

export interface BatchSnapshotContext {
  baseUrl: string;
  fetch: typeof globalThis.fetch;
  now: () => number;
  /** Most ids per request. Default 50. */
  maxIds?: number;
  /** Headers and credentials of every request (the client's `headers` / `credentials`). */
  requestInit?: () => Promise<RequestInit>;
}

interface Waiting {
  resolve: (load: SnapshotLoad) => void;
  reject: (error: unknown) => void;
}

/**
 * A `loadSnapshot` that batches: the loads asked for in the same macrotask become one
 * `GET {baseUrl}/runs?ids=a,b,…` (the multiplex handlers' batched snapshot). Each store still
 * validates its own snapshot; a missing run rejects `run-not-found` (404) for that run only, a
 * run in the answer's `errors` rejects an `http` error with its status (500) for that run only.
 *
 * @example
 * const client = createRunlightClient({ baseUrl, loadSnapshot: batchSnapshotLoader({ baseUrl, fetch, now: Date.now }) });
 */
export function batchSnapshotLoader(
  context: BatchSnapshotContext,
): (runId: string, options: { signal?: AbortSignal }) => Promise<SnapshotLoad> {
  const maxIds = context.maxIds ?? 50;
  let queued = new Map<string, Waiting[]>();
  let scheduled = false;

  const flush = () => {
    scheduled = false;
    const batch = queued;
    queued = new Map();
    const ids = [...batch.keys()];
    for (let index = 0; index < ids.length; index += maxIds) {
      const slice = ids.slice(index, index + maxIds);
      void load(slice).then(
        (result) => {
          for (const id of slice) {
            const found = result.get(id);
            for (const waiting of batch.get(id) ?? []) {
              if (found instanceof Error) waiting.reject(found);
              else waiting.resolve(found!);
            }
          }
        },
        (error: unknown) => {
          for (const id of slice) for (const waiting of batch.get(id) ?? []) waiting.reject(error);
        },
      );
    }
  };

  const load = async (ids: string[]): Promise<Map<string, SnapshotLoad | Error>> => {
    const url = `${context.baseUrl}/runs?ids=${ids.map(encodeURIComponent).join(',')}`;
    const sentAt = context.now();
    let response: Response;
    let text: string;
    try {
      const init = (await context.requestInit?.()) ?? {};
      const headers = new Headers(init.headers);
      headers.set('accept', 'application/json');
      response = await context.fetch(url, { ...init, headers });
      text = await response.text();
    } catch (cause) {
      throw new RunlightClientError(
        'network',
        `Loading the snapshots of ${ids.length} runs failed`,
        {
          cause,
        },
      );
    }
    const receivedAt = context.now();
    if (!response.ok) {
      throw new RunlightClientError(
        'http',
        `Loading the snapshots of ${ids.length} runs answered HTTP ${response.status}`,
        { status: response.status },
      );
    }
    let body: {
      snapshots?: unknown;
      missing?: unknown;
      forbidden?: unknown;
      errors?: unknown;
      serverTime?: unknown;
    };
    try {
      body = JSON.parse(text);
    } catch (cause) {
      throw new RunlightClientError('malformed-json', 'The snapshots body is not valid JSON', {
        cause,
      });
    }
    if (!Array.isArray(body?.snapshots)) {
      throw new RunlightClientError('invalid-snapshot', 'The snapshots body has no snapshots', {
        field: 'snapshots',
      });
    }
    const serverTime =
      typeof body.serverTime === 'string' ? Date.parse(body.serverTime) : Number.NaN;
    const clockOffsetMs = Number.isNaN(serverTime) ? null : serverTime - (sentAt + receivedAt) / 2;
    const result = new Map<string, SnapshotLoad | Error>();
    for (const snapshot of body.snapshots as { run?: { id?: unknown } }[]) {
      const id = snapshot?.run?.id;
      // The store validates the body; here it is only routed by its run id.
      if (typeof id === 'string') result.set(id, { snapshot, clockOffsetMs });
    }
    // A run the server could not read is an error for that run alone (its store shows it and
    // retries with backoff); the other runs of the batch load.
    for (const entry of Array.isArray(body.errors) ? body.errors : []) {
      const { runId, status, code } = (entry ?? {}) as Record<string, unknown>;
      if (typeof runId !== 'string' || !ids.includes(runId) || result.has(runId)) continue;
      const httpStatus = typeof status === 'number' && status >= 400 && status < 600 ? status : 500;
      result.set(
        runId,
        new RunlightClientError(
          'http',
          `Loading run ${runId} failed on the server (${typeof code === 'string' ? code : 'error'})`,
          { status: httpStatus },
        ),
      );
    }
    for (const id of ids) {
      if (result.has(id)) continue;
      const forbidden = Array.isArray(body.forbidden) && body.forbidden.includes(id);
      result.set(
        id,
        forbidden
          ? new RunlightClientError('http', `Reading run ${id} is not allowed`, { status: 403 })
          : new RunlightClientError('run-not-found', `Run ${id} does not exist`, { status: 404 }),
      );
    }
    return result;
  };

  return (runId, options) =>
    new Promise<SnapshotLoad>((resolve, reject) => {
      if (options.signal?.aborted) {
        reject(options.signal.reason);
        return;
      }
      const list = queued.get(runId) ?? [];
      list.push({ resolve, reject });
      queued.set(runId, list);
      if (!scheduled) {
        scheduled = true;
        setTimeout(flush, 0);
      }
    });
}
