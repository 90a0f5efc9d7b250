/**
 * The request target (path and query) exactly as the client sent it. A Web `Request`'s `url`
 * has been through the WHATWG URL parser, which resolves `.` and `..` segments (also encoded as
 * `%2e`), turns `\` into `/` and drops a `#fragment`: `/api/x/../runs/secret` arrives as
 * `/api/runs/secret`, while Express-style hosts match the raw path. An adapter that has the raw
 * target records it on the `Request` itself, under a `Symbol.for` key: it travels with the
 * request, so a router from another copy of this package (a bundler may load it twice) reads
 * what this copy's `toNodeListener` recorded. Never a module-level map.
 */
const RAW_TARGET = Symbol.for('runlight.rawRequestTarget');

/**
 * Records the raw request target of `request` (e.g. node's `req.url`), for adapters other than
 * `toNodeListener` / `createNodeRequest`, which record it themselves.
 *
 * @example
 * const request = new Request(new URL(req.url, 'http://localhost'), { method: req.method });
 * setRawRequestTarget(request, req.url);
 */
export function setRawRequestTarget(request: Request, target: string): void {
  Object.defineProperty(request, RAW_TARGET, { value: target, configurable: true });
}

/**
 * The raw target of `request` with no origin (`/path?query#fragment`): as its adapter recorded
 * it, else rebuilt from `request.url`.
 */
export function rawTargetOf(request: Request): string {
  const target = (request as unknown as Record<symbol, unknown>)[RAW_TARGET];
  if (typeof target !== 'string') {
    const url = new URL(request.url);
    return `${url.pathname}${url.search}${url.hash}`;
  }
  // An absolute-form target (`GET http://host/path`) carries the origin first.
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(target)
    ? target.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '')
    : target;
}

/** The raw path of `request` (no query, no fragment). */
export function rawPathOf(request: Request): string {
  const target = rawTargetOf(request);
  const end = target.search(/[?#]/);
  return end < 0 ? target : target.slice(0, end);
}

/** A dot segment, literal or percent-encoded (`.`, `..`, `%2e`, `.%2E`, …). */
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;
/**
 * In a path: an encoded `/`, `\`, `?` or `#`, a literal `\` (the URL parser reads it as `/`),
 * or a NUL — each means another path to a host, a proxy or a parser that decodes it.
 */
const AMBIGUOUS = /%2f|%5c|%3f|%23|\\|%00/i;

/**
 * Why a raw request target cannot be matched as sent, or `null` when it can. Refused: a
 * fragment (`#`: a client never sends one, and `/runs/A#/../B` is run A to the URL parser but
 * run B to a path normaliser), a `/` or `\` in the query (`/runs/A?/../B` likewise), and in the
 * path dot segments, doubled slashes, encoded slashes, backslashes, `?` and `#` — anything a
 * normaliser would turn into another route than the one a host's own middleware matched.
 *
 * @example
 * pathProblem('/api/runs/run-1');           // null
 * pathProblem('/api/x/../runs/run-1');      // 'holds a "." or ".." segment'
 * pathProblem('/api/runs/A#/../B');         // 'holds a fragment ("#")'
 */
export function pathProblem(target: string): string | null {
  if (!target.startsWith('/')) return 'does not start with "/"';
  if (target.includes('#')) return 'holds a fragment ("#")';
  const queryAt = target.indexOf('?');
  const path = queryAt < 0 ? target : target.slice(0, queryAt);
  const query = queryAt < 0 ? '' : target.slice(queryAt + 1);
  if (/[/\\]/.test(query)) return 'holds a "/" or "\\" in its query';
  if (path.includes('//')) return 'holds an empty segment ("//")';
  if (AMBIGUOUS.test(path)) return 'holds an encoded "/", "\\", "?" or "#", a backslash or a NUL';
  if (path.split('/').some((segment) => DOT_SEGMENT.test(segment))) {
    return 'holds a "." or ".." segment';
  }
  return null;
}
