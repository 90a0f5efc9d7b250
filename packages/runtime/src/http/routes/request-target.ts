/**
 * The request target (path and query) exactly as the client sent it. A Web `Request`'s `url`
 * has been through the WHATWG URL parser, which resolves `.` and `..` segments (also encoded as
 * `%2e`) and turns `\` into `/`: `/api/x/../runs/secret` arrives as `/api/runs/secret`, while
 * Express-style hosts match the raw path. An adapter that has the raw target records it here.
 */
const rawTargets = new WeakMap<Request, string>();

/**
 * Records the raw request target of `request` (e.g. node's `req.url`), for adapters other than
 * `toNodeListener` / `createNodeRequest`, which record it themselves.
 *
 * @example
 * const request = new Request(new URL(req.url, 'http://localhost'), { method: req.method });
 * setRawRequestTarget(request, req.url);
 */
export function setRawRequestTarget(request: Request, target: string): void {
  rawTargets.set(request, target);
}

/** The raw path of `request` (no query): recorded by its adapter, else from `request.url`. */
export function rawPathOf(request: Request): string {
  const target = rawTargets.get(request);
  if (target === undefined) return new URL(request.url).pathname;
  // An absolute-form target (`GET http://host/path`) carries the origin first.
  const path = /^[a-z][a-z0-9+.-]*:\/\//i.test(target)
    ? target.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '')
    : target;
  const end = path.search(/[?#]/);
  return end < 0 ? path : path.slice(0, end);
}

/** A dot segment, literal or percent-encoded (`.`, `..`, `%2e`, `.%2E`, …). */
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;
/** Encoded `/` or `\`, a literal `\` (the URL parser reads it as `/`), or a NUL. */
const AMBIGUOUS = /%2f|%5c|\\|%00/i;

/**
 * Why a raw path cannot be matched as sent, or `null` when it can. Refused: dot segments,
 * doubled slashes, encoded slashes and backslashes — anything a normaliser would turn into
 * another route than the one a host's own middleware matched.
 *
 * @example
 * pathProblem('/api/runs/run-1');           // null
 * pathProblem('/api/x/../runs/run-1');      // 'holds a "." or ".." segment'
 */
export function pathProblem(path: string): string | null {
  if (!path.startsWith('/')) return 'does not start with "/"';
  if (path.includes('//')) return 'holds an empty segment ("//")';
  if (AMBIGUOUS.test(path)) return 'holds an encoded slash, a backslash or a NUL';
  if (path.split('/').some((segment) => DOT_SEGMENT.test(segment))) {
    return 'holds a "." or ".." segment';
  }
  return null;
}
