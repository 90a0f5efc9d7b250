import { jsonError } from '../json-error';

/** Which requests from other origins the cross-site guard still lets change runs. */
export interface CrossSiteOptions {
  /**
   * Origins trusted besides the request's own (`https://admin.example.com`), or a predicate.
   * Behind a proxy that rewrites `Host`, name the public origin here: browsers without
   * `Sec-Fetch-Site` are then still checked against it. The router also trusts every origin
   * its `cors` option allows.
   */
  trustedOrigins?: readonly string[] | ((origin: string) => boolean);
}

/** `null` when `request` may go on, else the `403 cross_site` to answer. */
export type CrossSiteGuard = (request: Request) => Response | null;

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * A guard against cross-site request forgery for the routes that change state (start, cancel,
 * approvals, a chat's send) — what a cookie session needs, since the browser attaches the
 * cookie to a `<form method=POST>` another site submits. The rule is Go's
 * `http.CrossOriginProtection`: a `GET`, `HEAD` or `OPTIONS` always passes; a request whose
 * `Origin` is trusted passes; otherwise a browser's `Sec-Fetch-Site` decides (`same-origin` or
 * `none` pass, `same-site` and `cross-site` are refused); without it, an `Origin` must name the
 * request's own host (`Host`); a request with neither header (curl, a server) passes — it
 * carries no browser's cookies. A refusal is `403 cross_site`, before the access policy is
 * asked or a byte of the body is read.
 *
 * @example
 * const guard = createCrossSiteGuard({ trustedOrigins: ['https://app.example.com'] });
 * const refused = guard(request);
 * if (refused) return refused;
 */
export function createCrossSiteGuard(options: CrossSiteOptions = {}): CrossSiteGuard {
  const { trustedOrigins } = options;
  const trusted =
    typeof trustedOrigins === 'function'
      ? trustedOrigins
      : (origin: string) => trustedOrigins?.includes(origin) === true;
  const refuse = () =>
    jsonError(403, 'cross_site', 'A request from another site may not change runs');
  return (request) => {
    if (SAFE_METHODS.has(request.method)) return null;
    const origin = request.headers.get('origin');
    if (origin !== null && trusted(origin)) return null;
    const site = request.headers.get('sec-fetch-site');
    if (site !== null) return site === 'same-origin' || site === 'none' ? null : refuse();
    if (origin === null) return null;
    const host = request.headers.get('host') ?? new URL(request.url).host;
    let originHost: string;
    try {
      originHost = new URL(origin).host;
    } catch {
      return refuse(); // `Origin: null` (a sandboxed frame, a redirect chain) or garbage
    }
    return originHost !== '' && originHost === host ? null : refuse();
  };
}

/**
 * The guard a routes option asks for: `true` (defaults), options, or nothing. `alsoTrust` adds
 * origins the caller already trusts (the router's CORS origins).
 */
export function crossSiteGuardOf(
  option: boolean | CrossSiteOptions | undefined,
  alsoTrust?: (origin: string) => boolean,
): CrossSiteGuard | null {
  if (option === undefined || option === false) return null;
  const own = createCrossSiteGuard(option === true ? {} : option);
  if (!alsoTrust) return own;
  return (request) => {
    const origin = request.headers.get('origin');
    return origin !== null && alsoTrust(origin) ? null : own(request);
  };
}
