import type { Readiness } from './readiness';

const NO_STORE = { 'Cache-Control': 'no-store' };

/**
 * `GET /health` (liveness: `200 { status: 'ok' }` while the process can answer at all) and
 * `GET /ready` (readiness: `200 { ready: true }`, or `503 { ready: false, reason }` — see
 * `Readiness`), at the server's root whatever its `basePath`, for an orchestrator's probes and
 * a load balancer's health checks. They name no run and read none, so they answer without the
 * access policy; `null` for every other request.
 */
export function healthRoute(
  request: Request,
  readiness: () => Promise<Readiness>,
): Promise<Response> | null {
  const { pathname } = new URL(request.url);
  if (pathname !== '/health' && pathname !== '/ready') return null;
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    return Promise.resolve(
      Response.json(
        { error: { code: 'method_not_allowed', message: `${request.method} is not allowed here` } },
        { status: 405, headers: { ...NO_STORE, Allow: 'GET, HEAD' } },
      ),
    );
  }
  if (pathname === '/health') {
    return Promise.resolve(Response.json({ status: 'ok' }, { headers: NO_STORE }));
  }
  return readiness().then((answer) =>
    Response.json(answer, { status: answer.ready ? 200 : 503, headers: NO_STORE }),
  );
}
