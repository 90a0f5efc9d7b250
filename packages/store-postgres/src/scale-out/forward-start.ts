import type { StartRun } from '@runlight/runtime';

/** How long a gateway waits for a runner to answer a forwarded start (it answers once the run exists). */
const FORWARD_TIMEOUT_MS = 10_000;
/**
 * Tries of one start. Only a start no runner took is tried again — refused (`ECONNREFUSED`: a
 * runner that stopped listening) or `503 runtime_closed` (a runner shutting down): nothing was
 * created, and the runners' balancer sends the next try to another runner.
 */
const FORWARD_ATTEMPTS = 3;
const RETRY_PAUSE_MS = 50;

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
 * (its cookie or token) and body; the runner's answer (`201 { runId }`, `400`, `403`, …) is the
 * gateway's. A start no runner took (refused, or `503 runtime_closed` during a deploy) is tried
 * again, up to 3 times; a runner that does not answer within 10 s, or none at all, is
 * `503 runner_unavailable`: the client may retry the start.
 */
export function forwardStart(runnersUrl: string, basePath: string): StartRun {
  const target = new URL(`${basePath.replace(/\/+$/, '')}/runs`, runnersUrl);
  return async ({ request, body }) => {
    const headers = new Headers();
    for (const [name, value] of request.headers) {
      if (!HOP_HEADERS.has(name)) headers.set(name, value);
    }
    headers.set('content-type', 'application/json');
    const signal = AbortSignal.timeout(FORWARD_TIMEOUT_MS);
    for (let attempt = 1; ; attempt++) {
      const last = attempt === FORWARD_ATTEMPTS;
      let answer: Response;
      try {
        answer = await fetch(target, {
          method: 'POST',
          headers,
          body: JSON.stringify(body ?? {}),
          signal,
          redirect: 'manual',
        });
      } catch (error) {
        if (last || !refused(error)) return runnerUnavailable();
        await pause(RETRY_PAUSE_MS);
        continue;
      }
      const bytes = await answer.arrayBuffer();
      if (!last && answer.status === 503 && closedRunner(bytes)) {
        await pause(RETRY_PAUSE_MS);
        continue;
      }
      return new Response(bytes, {
        status: answer.status,
        headers: {
          'Content-Type': answer.headers.get('content-type') ?? 'application/json',
          'Cache-Control': 'no-store',
        },
      });
    }
  };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const runnerUnavailable = () =>
  Response.json(
    { error: { code: 'runner_unavailable', message: 'No runner took the start; retry it' } },
    { status: 503, headers: { 'Cache-Control': 'no-store', 'Retry-After': '1' } },
  );

/** The connection was refused: the request never reached a runner. */
function refused(error: unknown): boolean {
  const cause = (error as { cause?: { code?: unknown } } | null)?.cause;
  return cause?.code === 'ECONNREFUSED';
}

/** A runner's `503 runtime_closed`: it is shutting down and created nothing. */
function closedRunner(bytes: ArrayBuffer): boolean {
  try {
    const parsed = JSON.parse(new TextDecoder().decode(bytes)) as { error?: { code?: unknown } };
    return parsed.error?.code === 'runtime_closed';
  } catch {
    return false;
  }
}
