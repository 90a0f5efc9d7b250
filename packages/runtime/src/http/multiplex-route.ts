import type { MultiplexHandlers } from './create-multiplex-handlers';
import { jsonError } from './json-error';

/**
 * Routes `GET {basePath}/run-events` and `GET {basePath}/runs` (no id) to the multiplex
 * handlers; `null` for any other path. Another method gets `405`.
 */
export function routeMultiplex(
  handlers: MultiplexHandlers,
  request: Request,
  basePath: string,
): Promise<Response> | null {
  const { pathname } = new URL(request.url);
  const base = basePath.replace(/\/+$/, '');
  const route =
    pathname === `${base}/run-events` ? 'events' : pathname === `${base}/runs` ? 'snapshots' : null;
  if (route === null) return null;
  if (request.method !== 'GET') {
    return Promise.resolve(
      jsonError(405, 'method_not_allowed', `${request.method} is not allowed here`, {
        Allow: 'GET',
      }),
    );
  }
  return route === 'events' ? handlers.events(request) : handlers.snapshots(request);
}
