import type { StartRun } from '@runlight/runtime';

/** How long a gateway waits for a runner to answer a forwarded start (it answers once the run exists). */
const FORWARD_TIMEOUT_MS = 10_000;

/** Headers that describe one hop, not the request: never forwarded. */
const HOP_HEADERS = new Set([
  'host',
  'connection',
  'keep-alive',
  'content-length',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
  'proxy-authorization',
  'proxy-connection',
]);

/**
 * A gateway's `POST {basePath}/runs`: the start, already admitted by the gateway's access
 * policy, is sent on to `{runnersUrl}{basePath}/runs` (a runner process serving the start route
 * with the same policy, usually through an internal load balancer) with the caller's headers
 * (its cookie or token) and body; the runner's answer (`201 { runId }`, `400`, `403`,
 * `503 runtime_closed` during a deploy, …) is the gateway's. A runner that does not answer
 * within 10 s, or cannot be reached, is `503 runner_unavailable`: the start may be retried.
 */
export function forwardStart(runnersUrl: string, basePath: string): StartRun {
  const target = new URL(`${basePath.replace(/\/+$/, '')}/runs`, runnersUrl);
  return async ({ request, body }) => {
    const headers = new Headers();
    for (const [name, value] of request.headers) {
      if (!HOP_HEADERS.has(name)) headers.set(name, value);
    }
    headers.set('content-type', 'application/json');
    try {
      const answer = await fetch(target, {
        method: 'POST',
        headers,
        body: JSON.stringify(body ?? {}),
        signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
        redirect: 'manual',
      });
      return new Response(await answer.arrayBuffer(), {
        status: answer.status,
        headers: {
          'Content-Type': answer.headers.get('content-type') ?? 'application/json',
          'Cache-Control': 'no-store',
        },
      });
    } catch {
      return Response.json(
        { error: { code: 'runner_unavailable', message: 'No runner took the start; retry it' } },
        { status: 503, headers: { 'Cache-Control': 'no-store', 'Retry-After': '1' } },
      );
    }
  };
}
