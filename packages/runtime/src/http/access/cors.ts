/** Which cross-origin pages may call the run routes (`createRunRouter({ cors })`). */
export interface RunCorsOptions {
  /** An exact origin (`https://app.example.com`), a list of them, `'*'`, or a predicate. */
  origin: string | readonly string[] | ((origin: string) => boolean);
  /** Let the page send cookies / HTTP auth (`fetch(…, { credentials: 'include' })`). Not with `'*'`. */
  credentials?: boolean;
  /** Request headers a page may send. Default `Last-Event-ID`, `Content-Type`, `Authorization`. */
  allowHeaders?: readonly string[];
  /** How long a browser may cache a preflight answer, in seconds. Default 600. */
  maxAgeSeconds?: number;
}

/** A CORS policy: answers preflights and adds the headers to every run-route response. */
export interface RunCorsPolicy {
  /** The answer to a preflight (`OPTIONS` with `Access-Control-Request-Method`), else `null`. */
  preflight(request: Request): Response | null;
  /** `response` with the CORS headers for `request`'s origin (unchanged for other origins). */
  apply(request: Request, response: Response): Response;
}

const METHODS = 'GET, POST, OPTIONS';

/**
 * A CORS policy for apps that serve the run API from another origin than the page. Off unless
 * configured; an origin the policy does not name gets no CORS headers (the browser then
 * refuses the answer). Responses vary on `Origin`, so caches keep origins apart.
 *
 * @example
 * const cors = createCorsPolicy({ origin: 'https://app.example.com', credentials: true });
 * createRunRouter({ handlers, authorize, cors: { origin: 'https://app.example.com' } });
 */
export function createCorsPolicy(options: RunCorsOptions): RunCorsPolicy {
  const { origin } = options;
  if (options.credentials && origin === '*') {
    throw new TypeError('CORS: credentials with origin "*" would let every site act as the user');
  }
  const allowed =
    typeof origin === 'function'
      ? origin
      : typeof origin === 'string'
        ? (value: string) => origin === '*' || value === origin
        : (value: string) => origin.includes(value);
  const allowHeaders = (
    options.allowHeaders ?? ['Last-Event-ID', 'Content-Type', 'Authorization']
  ).join(', ');
  const maxAge = String(options.maxAgeSeconds ?? 600);

  const headersFor = (request: Request): Record<string, string> | null => {
    const requestOrigin = request.headers.get('origin');
    if (requestOrigin === null || !allowed(requestOrigin)) return null;
    const headers: Record<string, string> = {
      'Access-Control-Allow-Origin': origin === '*' && !options.credentials ? '*' : requestOrigin,
    };
    if (options.credentials) headers['Access-Control-Allow-Credentials'] = 'true';
    return headers;
  };

  return {
    preflight(request) {
      if (request.method !== 'OPTIONS') return null;
      if (!request.headers.has('access-control-request-method')) return null;
      const headers: Record<string, string> = { Vary: 'Origin', 'Cache-Control': 'no-store' };
      const cors = headersFor(request);
      if (cors !== null) {
        Object.assign(headers, cors, {
          'Access-Control-Allow-Methods': METHODS,
          'Access-Control-Allow-Headers': allowHeaders,
          'Access-Control-Max-Age': maxAge,
        });
      }
      return new Response(null, { status: 204, headers });
    },
    apply(request, response) {
      const cors = headersFor(request);
      const headers = new Headers(response.headers);
      headers.append('Vary', 'Origin');
      if (cors !== null) for (const [name, value] of Object.entries(cors)) headers.set(name, value);
      // A new response: the handler's may have immutable headers (e.g. one from `authorize`).
      return new Response(response.body, {
        status: response.status,
        statusText: response.statusText,
        headers,
      });
    },
  };
}
