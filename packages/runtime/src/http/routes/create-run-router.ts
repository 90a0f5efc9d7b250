import {
  type RouterAccess,
  type RunAccessPolicy,
  requireAccessPolicy,
} from '../access/access-policy';
import { AccessPolicyError } from '../access/access-policy-error';
import { createCorsPolicy, type RunCorsOptions } from '../access/cors';
import { type CrossSiteOptions, crossSiteGuardOf } from '../access/cross-site-guard';
import type { MultiplexHandlers } from '../create-multiplex-handlers';
import { checkRunId, type RunHandlers } from '../create-run-handlers';
import { jsonError } from '../json-error';
import { pathProblem, rawPathOf, rawTargetOf } from './request-target';
import { matchRunRoute, RUN_ROUTES, type RunRoute } from './run-routes';

export interface RunRouterOptions {
  handlers: RunHandlers;
  /** Path prefix the routes live under, e.g. `/api` → `/api/runs/:id`. Default `''`. */
  basePath?: string;
  /**
   * Cross-origin access for pages on other origins (off by default): preflights on every route
   * the router serves are answered and every response carries the CORS headers (cors.ts).
   */
  cors?: RunCorsOptions;
  /**
   * Refuse requests from other sites on the routes that change state — start, cancel,
   * approvals (`403 cross_site`, before the policy is asked or the body read): **set it for a
   * cookie session**, whose cookie a browser attaches to another site's `<form method=POST>`.
   * `true`, or `{ trustedOrigins }`; the origins `cors` names are trusted too. Decided by
   * `Sec-Fetch-Site`, else `Origin` against `Host` (`createCrossSiteGuard`). Off by default
   * (a bearer token is never sent by another site).
   */
  refuseCrossSite?: boolean | CrossSiteOptions;
  /** Also mounts `GET {basePath}/run-events` and `GET {basePath}/runs?ids=` (many runs, one connection). */
  multiplex?: MultiplexHandlers;
  /**
   * **The access policy of every route this router serves** — snapshot, events, history,
   * cancel, approvals, start, the multiplexed stream (per run) and the batched snapshots (per
   * run) — asked with the route's `action` before anything is read or changed (`Authorize`).
   * `'public'` serves every run to anyone, on purpose. Required: without it the router is not
   * built (`AccessPolicyError`). The router hands it to the handlers with every call (an
   * argument, so handlers from another copy of this package ask it too). A handlers object's
   * own `authorize` still applies to its routes: the router's is asked first, both must allow.
   */
  authorize: RunAccessPolicy;
  /**
   * How often an open event stream (single-run or multiplexed, per run) re-asks `authorize`
   * with `read`; a refusal ends that run's stream with an `unauthorized` message, which the
   * client shows as the `unauthorized` connection state. Default 60 000 ms (a revoked session
   * stops receiving within a minute; one policy call per open stream per minute); `0` turns it
   * off.
   */
  reauthorizeMs?: number;
}

/**
 * `(request) => response`, or `null` when the request is not one of the run routes. `routes`
 * lists the routes it serves (its own table: a route it does not list, it does not serve).
 */
export type RunRouter = ((request: Request) => Promise<Response | null>) & {
  readonly routes: readonly RunRoute[];
};

/**
 * A `'public'` router over handlers of which some guard their routes and others do not would
 * serve, on the unguarded routes, the runs the guarded ones refuse — e.g. `authorize` given to
 * `createRunHandlers` only: `run-events` and `runs?ids=` would stream and load every run.
 */
function checkEven(options: RunRouterOptions): void {
  if (options.authorize !== 'public' || options.multiplex === undefined) return;
  const guarded = [options.handlers.ownPolicy, options.multiplex.ownPolicy].map(
    (policy) => policy === 'authorize',
  );
  if (guarded[0] === guarded[1]) return;
  throw new AccessPolicyError(
    'uneven',
    "createRunRouter({ authorize: 'public' }) over handlers of which only " +
      `${guarded[0] ? 'createRunHandlers' : 'createMultiplexHandlers'} has its own authorize: ` +
      'the other routes would serve the runs it refuses. Give the router the policy ' +
      '(`authorize`, asked on every route), or give both handlers their own.',
  );
}

/**
 * Mounts the run routes under `basePath` (the full table is `RUN_ROUTES`; `router.routes` is
 * what this router serves):
 * - `GET  {basePath}/runs/:id` (snapshot), `GET {basePath}/runs/:id/events` (SSE),
 *   `GET {basePath}/runs/:id/operations` (history), `GET {basePath}/runs/:id/events/:revision`
 *   (one event, for an `event-ref`)
 * - `POST {basePath}/runs/:id/cancel`, `POST {basePath}/runs/:id/approvals`
 * - `POST {basePath}/runs` (start; only with the handlers' `start` option)
 * - with `multiplex`: `GET {basePath}/run-events`, `GET {basePath}/runs?ids=`
 *
 * `authorize` is asked on every one of them (see `RunRouterOptions.authorize`); without one
 * the router is not built (`AccessPolicyError`).
 *
 * Paths are matched exactly as sent (the raw target `toNodeListener` records, see
 * `setRawRequestTarget`): one with a fragment (`#`), a `/` in its query, `.`/`..` segments,
 * `//`, an encoded `/`, `\`, `?` or `#`, or a backslash that would mean a run route under any
 * reading is refused `400 bad_path`, never served as another route —
 * so a host's own middleware on `/api/runs` cannot be walked around with `/api/x/../runs/…`.
 * The id is URL-decoded and validated with `RunIdSchema` (`400 bad_run_id`); a wrong method on
 * a run route gets `405` with `Allow`. Anything else resolves `null`, for the host's routes.
 *
 * @example
 * const route = createRunRouter({
 *   handlers: createRunHandlers({ store, runtime }),
 *   multiplex: createMultiplexHandlers({ store, runtime }),
 *   authorize: async ({ request, runId, action }) => canAccess(await userOf(request), runId, action),
 *   basePath: '/api',
 * });
 * createServer(toNodeListener(route)).listen(3000);
 */
export function createRunRouter(options: RunRouterOptions): RunRouter {
  const { handlers, multiplex } = options;
  const base = (options.basePath ?? '').replace(/\/+$/, '');
  const runs = `${base}/runs`;
  const prefix = `${runs}/`;
  const routes = RUN_ROUTES.filter((route) => multiplex !== undefined || !route.multiplex);
  const runEvents = `${base}/run-events`;
  const access: RouterAccess = {
    authorize: requireAccessPolicy(options.authorize, 'createRunRouter'),
    reauthorizeMs: options.reauthorizeMs,
  };
  checkEven(options);

  const cors = options.cors ? createCorsPolicy(options.cors) : null;
  // A CORS origin the app named is one it trusts; `'*'` names nobody in particular.
  const corsOrigin = options.cors?.origin;
  const crossSite = crossSiteGuardOf(
    options.refuseCrossSite,
    corsOrigin === undefined || corsOrigin === '*'
      ? undefined
      : typeof corsOrigin === 'function'
        ? corsOrigin
        : (origin) => (typeof corsOrigin === 'string' ? [corsOrigin] : corsOrigin).includes(origin),
  );
  const answer = async (request: Request): Promise<Response | null> => {
    const raw = rawPathOf(request);
    const problem = pathProblem(rawTargetOf(request));
    if (problem !== null) {
      // Ours under any reading (as sent, or as a URL parser normalised it): refuse, never guess.
      const parsed = new URL(request.url).pathname;
      const ours = (path: string) =>
        path === runs || path.startsWith(prefix) || (multiplex !== undefined && path === runEvents);
      // `…/runs%2Fid` is a run route once its encoded slashes are read as slashes.
      const slashed = raw.replace(/%2f|%5c|\\/gi, '/');
      const readings = [raw, parsed, slashed].flatMap((path) => [
        path,
        path.replace(/\/{2,}/g, '/'),
      ]);
      if (!readings.some(ours)) return null;
      return jsonError(400, 'bad_path', `The request path ${problem}`);
    }
    if (!raw.startsWith(`${base}/`)) return null;
    const candidates = matchRunRoute(routes, raw.slice(base.length));
    if (candidates.length === 0) return null;

    if (cors !== null && request.method === 'OPTIONS') {
      const preflight = cors.preflight(request);
      if (preflight !== null) return preflight;
    }
    const match = candidates.find((candidate) => candidate.route.method === request.method);
    if (match === undefined) {
      // `{base}/runs` with another method stays the host's (e.g. its own run list).
      if (raw === runs) return null;
      const allow = [...new Set(candidates.map((candidate) => candidate.route.method))];
      return jsonError(405, 'method_not_allowed', `${request.method} is not allowed here`, {
        Allow: allow.join(', '),
      });
    }
    if (crossSite !== null && match.route.method === 'POST') {
      const refused = crossSite(request);
      if (refused !== null) return refused;
    }
    let runId = '';
    if (match.encodedId !== null) {
      try {
        runId = decodeURIComponent(match.encodedId);
      } catch {
        return jsonError(400, 'bad_run_id', 'Run id is not valid percent-encoding');
      }
      const invalid = checkRunId(runId);
      if (invalid) return invalid;
    }
    // The policy goes with the call: the handlers ask it before they touch the store.
    switch (match.route.name) {
      case 'start':
        return handlers.start(request, access);
      case 'snapshots':
        return multiplex!.snapshots(request, access);
      case 'multiplexed-events':
        return multiplex!.events(request, access);
      case 'event':
        return handlers.event(request, runId, match.revision!, access);
      default:
        return handlers[match.route.name](request, runId, access);
    }
  };

  const route =
    cors === null
      ? answer
      : async (request: Request) => {
          const response = await answer(request);
          return response === null ? null : cors.apply(request, response);
        };
  return Object.assign(route, { routes });
}
