import type { MultiplexHandlers } from './create-multiplex-handlers';
import { checkRunId, type RunHandlers } from './create-run-handlers';
import { jsonError } from './json-error';
import { routeMultiplex } from './multiplex-route';

export interface RunRouterOptions {
  handlers: RunHandlers;
  /** Path prefix the routes live under, e.g. `/api` → `/api/runs/:id`. Default `''`. */
  basePath?: string;
  /** Also mounts `GET {basePath}/run-events` and `GET {basePath}/runs?ids=` (many runs, one connection). */
  multiplex?: MultiplexHandlers;
}

/** `(request) => response`, or `null` when the request is not one of the run routes. */
export type RunRouter = (request: Request) => Promise<Response | null>;

/**
 * Matches `GET {basePath}/runs/:id` (snapshot) and `GET {basePath}/runs/:id/events` (SSE). The id
 * is URL-decoded and validated with `RunIdSchema` (`400 bad_run_id` when invalid); another method
 * on a run route gets `405`. Anything else resolves `null`, so the host can try its own routes.
 *
 * @example
 * const route = createRunRouter({ handlers: createRunHandlers({ store, runtime }), basePath: '/api' });
 * createServer(toNodeListener(route)).listen(3000);
 */
export function createRunRouter(options: RunRouterOptions): RunRouter {
  const { handlers } = options;
  const prefix = `${(options.basePath ?? '').replace(/\/+$/, '')}/runs/`;

  return async (request) => {
    const many =
      options.multiplex && routeMultiplex(options.multiplex, request, options.basePath ?? '');
    if (many) return many;
    const { pathname } = new URL(request.url);
    if (!pathname.startsWith(prefix)) return null;
    const segments = pathname.slice(prefix.length).split('/');
    const [encodedId, tail] = segments;
    const route =
      segments.length === 1
        ? 'snapshot'
        : segments.length === 2 && tail === 'events'
          ? 'events'
          : null;
    if (route === null || !encodedId) return null;

    if (request.method !== 'GET') {
      return jsonError(405, 'method_not_allowed', `${request.method} is not allowed here`, {
        Allow: 'GET',
      });
    }
    let runId: string;
    try {
      runId = decodeURIComponent(encodedId);
    } catch {
      return jsonError(400, 'bad_run_id', 'Run id is not valid percent-encoding');
    }
    const invalid = checkRunId(runId);
    if (invalid) return invalid;
    return route === 'snapshot'
      ? handlers.snapshot(request, runId)
      : handlers.events(request, runId);
  };
}
