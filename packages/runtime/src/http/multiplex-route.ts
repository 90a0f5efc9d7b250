import type { MultiplexHandlers } from './create-multiplex-handlers';
import { jsonError } from './json-error';

/**
 * Routes `GET {basePath}/run-events` and `GET {basePath}/runs` (no id: the batched snapshots;
 * `POST {basePath}/runs` stays the start route) to the multiplex handlers; `null` for any other
 * request. Another method on `run-events` gets `405`. `path` is the raw path, already checked.
 */
export function routeMultiplex(
  handlers: MultiplexHandlers,
  request: Request,
  path: string,
  basePath: string,
): Promise<Response> | null {
  const base = basePath.replace(/\/+$/, '');
  const route =
    path === `${base}/run-events` ? 'events' : path === `${base}/runs` ? 'snapshots' : null;
  if (route === null) return null;
  if (route === 'snapshots' && request.method !== 'GET') return null;
  if (request.method !== 'GET') {
    return Promise.resolve(
      jsonError(405, 'method_not_allowed', `${request.method} is not allowed here`, {
        Allow: 'GET',
      }),
    );
  }
  return route === 'events' ? handlers.events(request) : handlers.snapshots(request);
}
