/** The origin relative URLs are resolved against in process (never dialled). */
const IN_PROCESS_ORIGIN = 'http://in-process.invalid';

/**
 * A `fetch` that answers from `handler` (a `RunRouter`, a route) in this process: no socket, no
 * absolute self-URL. For server rendering — give it to `createRunlightClient({ fetch })` and
 * `prefetchRun` reads the store through the same handlers (the same access policy and public
 * form as over HTTP; forward the user's cookies with the client's `headers`). A request the
 * handler does not serve answers `404`.
 *
 * @example
 * const client = createRunlightClient({ baseUrl: '/api', fetch: inProcessFetch(router) });
 * await prefetchRun(queryClient, client, runId); // in a server component: no HTTP
 */
export function inProcessFetch(
  handler: (request: Request) => Promise<Response | null> | Response | null,
): typeof globalThis.fetch {
  return async (input, init) => {
    const request =
      input instanceof Request
        ? new Request(input, init)
        : new Request(new URL(String(input), IN_PROCESS_ORIGIN), init);
    return (
      (await handler(request)) ??
      Response.json(
        { error: { code: 'not_found', message: 'No such route' } },
        { status: 404, headers: { 'Cache-Control': 'no-store' } },
      )
    );
  };
}
