import type { IncomingMessage, ServerResponse } from 'node:http';
import { INTERNAL_ERROR_MESSAGE, jsonError } from '../json-error';
import { sseOutputOf } from '../streams/sse-output';
import { nodeRequestBody } from './node-request-body';
import { setRawRequestTarget } from './request-target';

/** A Web-standard handler; `null` means "not mine" (see `createRunRouter`). */
export type WebHandler = (request: Request) => Response | null | Promise<Response | null>;

/** A `node:http` / Connect listener; `next` (Connect, Vite dev server) receives unmatched requests. */
export type NodeListener = (
  request: IncomingMessage,
  response: ServerResponse,
  next?: (error?: unknown) => void,
) => void;

/**
 * A Web `Request` for a `node:http` request. `signal` should abort when the client goes away:
 * streaming handlers release their subscriptions on it. The body is read from the socket only
 * as the handler reads it; what a handler leaves unread is drained (up to `maxDrainBytes`,
 * default 64 MiB; past it the connection closes once `response` is sent), so an early answer —
 * a `401` before the body, a `413` past its limit — reaches a client still sending
 * (`nodeRequestBody`).
 *
 * @example
 * const request = createNodeRequest(req, abortController.signal);
 */
export function createNodeRequest(
  incoming: IncomingMessage,
  signal?: AbortSignal,
  options: { maxDrainBytes?: number; response?: ServerResponse } = {},
): Request {
  const encrypted = (incoming.socket as { encrypted?: boolean }).encrypted === true;
  const host = incoming.headers.host ?? 'localhost';
  const url = new URL(incoming.url ?? '/', `${encrypted ? 'https' : 'http'}://${host}`);
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming.headers)) {
    // HTTP/2 pseudo-headers (`:path`) are not valid header names.
    if (value === undefined || name.startsWith(':')) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  const method = incoming.method ?? 'GET';
  const hasBody = method !== 'GET' && method !== 'HEAD';
  const request = new Request(url, {
    method,
    headers,
    signal: signal ?? null,
    ...(hasBody ? { body: nodeRequestBody(incoming, options), duplex: 'half' } : {}),
  } as RequestInit);
  // The URL parser resolved `..` segments; the router matches the path as it was sent.
  setRawRequestTarget(request, incoming.url ?? '/');
  return request;
}

/**
 * Writes a Web `Response` to a `node:http` response, streaming its body with backpressure. When
 * the client goes away the body is cancelled, which releases whatever the handler held.
 *
 * @example
 * await writeNodeResponse(res, Response.json({ ok: true }));
 */
export function writeNodeResponse(target: ServerResponse, response: Response): Promise<void> {
  try {
    return startNodeResponse(target, response);
  } catch (error) {
    // Settled like the async function it was: a bad header rejects, it does not throw.
    return Promise.reject(error);
  }
}

function startNodeResponse(target: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie') headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  if (response.statusText) target.writeHead(response.status, response.statusText, headers);
  else target.writeHead(response.status, headers);
  if (response.body === null) {
    target.end();
    return Promise.resolve();
  }
  // Headers go out now: an event stream's client must not wait for the first event.
  target.flushHeaders();
  // A Runlight event stream writes straight to the response, skipping the Web stream hop. No
  // async frame waits for it: an idle watcher holds a listener and a promise, not the Response.
  const direct = sseOutputOf(response.body)?.attach(target);
  if (direct) {
    target.once('close', direct.cancel);
    return direct.finished.then(() => {
      target.off('close', direct.cancel);
    });
  }
  return pipeBody(target, response.body);
}

async function pipeBody(target: ServerResponse, body: ReadableStream<Uint8Array>): Promise<void> {
  const reader = body.getReader();
  const cancel = () => {
    reader.cancel().catch(() => {});
  };
  target.once('close', cancel);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      // A stream that errors while we wait (a client dropped for not reading) closes the
      // socket at once, instead of waiting for a drain that never comes.
      if (!target.write(value)) await Promise.race([drained(target), reader.closed]);
      if (target.destroyed) return;
    }
    target.end();
  } catch {
    // The body failed mid-way: the status is sent, so only an abrupt end says so.
    target.destroy();
  } finally {
    target.off('close', cancel);
  }
}

function drained(target: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      target.off('drain', done);
      target.off('close', done);
      resolve();
    };
    target.once('drain', done);
    target.once('close', done);
  });
}

/**
 * Mounts a Web-standard handler on `node:http` (or as Connect / Vite dev-server middleware). A
 * `null` answer goes to `next` when there is one, else `404 not_found`; a thrown error becomes
 * a generic `500` (details to `onError`).
 *
 * @example
 * const route = createRunRouter({ handlers, basePath: '/api', authorize });
 * createServer(toNodeListener(route)).listen(0, '127.0.0.1');
 * // Vite: server.middlewares.use(toNodeListener(route));
 */
export function toNodeListener(
  handler: WebHandler,
  options: { onError?: (error: unknown) => void } = {},
): NodeListener {
  const onError = options.onError ?? (() => {});
  return (incoming, target, next) => {
    const abort = new AbortController();
    // `close` also follows a finished response; aborting then is harmless.
    target.once('close', () => abort.abort());
    // A promise chain, not an async function: a long event stream then keeps no suspended
    // frame (and the Request and Response it would hold) per client.
    let answered: Promise<Response | null>;
    try {
      answered = Promise.resolve(
        handler(createNodeRequest(incoming, abort.signal, { response: target })),
      );
    } catch (error) {
      answered = Promise.reject(error);
    }
    answered
      .then(undefined, (error: unknown) => {
        onError(error);
        return jsonError(500, 'internal', INTERNAL_ERROR_MESSAGE);
      })
      .then((response) => {
        if (response === null) {
          if (next) {
            next();
            return;
          }
          return writeNodeResponse(
            target,
            jsonError(404, 'not_found', 'No route matches this request'),
          );
        }
        return writeNodeResponse(target, response);
      })
      .catch((error: unknown) => {
        onError(error);
        target.destroy();
      });
  };
}
