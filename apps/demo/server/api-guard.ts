import { fileURLToPath } from 'node:url';
import { pathProblem } from '@runlight/runtime';
import { demoError } from './json-response';

/**
 * Checks every `/api` request before any route sees it:
 * - `Host` must name this server on loopback (`localhost`, `127.0.0.1`, `[::1]` with its port):
 *   a DNS-rebinding page reaches us under a foreign host name and is refused;
 * - `Origin`, when sent (browsers send it on every POST and on cross-origin requests), must be
 *   this server's own origin: a page on another origin cannot start, cancel or change anything;
 * - the raw path must be matched as sent (no `..`, `//`, encoded slashes).
 * Returns the refusal, or `null` when the request may go on.
 *
 * @example
 * const refusal = guardApiRequest(request, rawUrl, () => server.port);
 */
export function guardApiRequest(
  request: Request,
  rawPath: string,
  port: () => number,
): Response | null {
  const allowed = new Set(['localhost', '127.0.0.1', '[::1]'].map((name) => `${name}:${port()}`));
  const host = request.headers.get('host')?.toLowerCase() ?? '';
  if (!allowed.has(host)) {
    return demoError(403, 'forbidden', 'Unknown Host: the playground answers on loopback only');
  }
  const origin = request.headers.get('origin');
  if (origin !== null && !(origin.startsWith('http://') && allowed.has(origin.slice(7)))) {
    return demoError(403, 'forbidden', 'Requests from another origin are refused');
  }
  const problem = pathProblem(rawPath);
  if (problem !== null) return demoError(400, 'bad_request', `The request path ${problem}`);
  return null;
}

/** Paths the dev server must never serve, even though they sit under Vite's root. */
export function isServerSource(rawPath: string): boolean {
  let path = rawPath.split(/[?#]/, 1)[0] ?? '';
  try {
    path = decodeURIComponent(path);
  } catch {
    return true;
  }
  path = path
    .replace(/\\/g, '/')
    .replace(/\/{2,}/g, '/')
    .toLowerCase();
  if (/(^|\/)server(\/|$)/.test(path) || path.includes('/..')) return true;
  // Vite serves the workspace packages and its own client from outside the app root as
  // `/@fs/<absolute path>`: only those inside the workspace pass (never `/@fs/etc/passwd`).
  const fs = path.indexOf('/@fs/');
  return fs >= 0 && !path.slice(fs + 4).startsWith(WORKSPACE_ROOT);
}

/** The monorepo root, lower-cased like the paths compared with it. */
const WORKSPACE_ROOT = fileURLToPath(new URL('../../../', import.meta.url)).toLowerCase();
