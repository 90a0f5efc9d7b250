import { createCorsPolicy, type RunCorsOptions } from './cors';
import type { MultiplexHandlers } from './create-multiplex-handlers';
import { checkRunId, type RunHandlers } from './create-run-handlers';
import { jsonError } from './json-error';
import { routeMultiplex } from './multiplex-route';
import { pathProblem, rawPathOf } from './request-target';

export interface RunRouterOptions {
  handlers: RunHandlers;
  /** Path prefix the routes live under, e.g. `/api` → `/api/runs/:id`. Default `''`. */
  basePath?: string;
  /**
   * Cross-origin access for pages on other origins (off by default): preflights on the run
   * routes are answered and every run-route response carries the CORS headers (cors.ts).
   */
  cors?: RunCorsOptions;
  /** Also mounts `GET {basePath}/run-events` and `GET {basePath}/runs?ids=` (many runs, one connection). */
  multiplex?: MultiplexHandlers;
}

/** `(request) => response`, or `null` when the request is not one of the run routes. */
export type RunRouter = (request: Request) => Promise<Response | null>;

type Route = 'snapshot' | 'events' | 'history' | 'cancel' | 'approve';

/** Which route a run path's tail names, and the one method it takes. */
const TAILS: Record<string, { route: Route; method: 'GET' | 'POST' }> = {
  '': { route: 'snapshot', method: 'GET' },
  events: { route: 'events', method: 'GET' },
  operations: { route: 'history', method: 'GET' },
  cancel: { route: 'cancel', method: 'POST' },
  approvals: { route: 'approve', method: 'POST' },
};

const EVENT_AT = { route: 'event', method: 'GET' } as const;

/**
 * Mounts the run routes under `basePath`:
 * - `GET  {basePath}/runs/:id` (snapshot), `GET {basePath}/runs/:id/events` (SSE)
 * - `GET  {basePath}/runs/:id/events/:revision` (one event, for an `event-ref`)
 * - `POST {basePath}/runs/:id/cancel`, `POST {basePath}/runs/:id/approvals`
 * - `POST {basePath}/runs` (start; only with the handlers' `start` option)
 *
 * Paths are matched exactly as sent (the raw target `toNodeListener` records, see
 * `setRawRequestTarget`): one with `.`/`..` segments, `//`, or an encoded slash that would
 * mean a run route once normalised is refused `400 bad_path`, never served as another route —
 * so a host's own middleware on `/api/runs` cannot be walked around with `/api/x/../runs/…`.
 * The id is URL-decoded and validated with `RunIdSchema` (`400 bad_run_id`); a wrong method on
 * a run route gets `405` with `Allow`. Anything else resolves `null`, for the host's routes.
 *
 * @example
 * const route = createRunRouter({ handlers: createRunHandlers({ store, runtime }), basePath: '/api' });
 * createServer(toNodeListener(route)).listen(3000);
 */
export function createRunRouter(options: RunRouterOptions): RunRouter {
  const { handlers } = options;
  const runs = `${(options.basePath ?? '').replace(/\/+$/, '')}/runs`;
  const prefix = `${runs}/`;

  const cors = options.cors ? createCorsPolicy(options.cors) : null;
  const answer = async (request: Request): Promise<Response | null> => {
    const raw = rawPathOf(request);
    const problem = pathProblem(raw);
    if (problem !== null) {
      // Ours under any reading (as sent, or as a URL parser normalised it): refuse, never guess.
      const parsed = new URL(request.url).pathname;
      const ours = (path: string) => path === runs || path.startsWith(prefix);
      if (!ours(raw) && !ours(parsed) && !ours(raw.replace(/\/{2,}/g, '/'))) return null;
      return jsonError(400, 'bad_path', `The request path ${problem}`);
    }
    const many =
      options.multiplex && routeMultiplex(options.multiplex, request, raw, options.basePath ?? '');
    if (many) return many;
    if (raw === runs) {
      if (request.method !== 'POST') return null;
      return handlers.start(request);
    }
    if (!raw.startsWith(prefix)) return null;
    const segments = raw.slice(prefix.length).split('/');
    // `…/runs/:id/events/:revision`: one event an `event-ref` names (run-event-reference.ts).
    const revision =
      segments.length === 3 && segments[1] === 'events' && /^[0-9]+$/.test(segments[2]!)
        ? segments[2]
        : undefined;
    if (segments.length > 2 && !revision) return null;
    const [encodedId, tail = ''] = segments;
    const match = revision
      ? EVENT_AT
      : (segments.length === 1 || tail !== '') && Object.hasOwn(TAILS, tail)
        ? TAILS[tail]
        : undefined;
    if (match === undefined || !encodedId) return null;

    if (cors !== null && request.method === 'OPTIONS') {
      const preflight = cors.preflight(request);
      if (preflight !== null) return preflight;
    }
    if (request.method !== match.method) {
      return jsonError(405, 'method_not_allowed', `${request.method} is not allowed here`, {
        Allow: match.method,
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
    if (revision) return handlers.event(request, runId, revision);
    return handlers[match.route as Route](request, runId);
  };

  if (cors === null) return answer;
  return async (request) => {
    const response = await answer(request);
    return response === null ? null : cors.apply(request, response);
  };
}
