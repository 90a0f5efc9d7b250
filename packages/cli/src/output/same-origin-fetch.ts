/** Redirects a request follows at most, as `fetch` does. */
const MAX_REDIRECTS = 20;

/**
 * `fetch` that follows redirects only within the origin of the request — the base URL's — and
 * never carries the request's headers (`--header` credentials, cookies, API keys) anywhere
 * else. `fetch` itself drops only `Authorization` on a cross-origin redirect (the Fetch
 * standard); a `Cookie` or `X-Api-Key` would follow. A redirect to another origin is not
 * followed: its 3xx response is the answer (the client reads it as a failed request), and
 * `onRefused` says where it pointed (origin only: a URL's query may hold a token).
 *
 * @example
 * const fetch = sameOriginFetch(globalThis.fetch, (from, to) => warn(`${from} → ${to}`));
 */
export function sameOriginFetch(
  inner: typeof globalThis.fetch,
  onRefused: (from: string, to: string) => void,
): typeof globalThis.fetch {
  return async (input, init) => {
    let url = new URL(input instanceof Request ? input.url : String(input));
    const origin = url.origin;
    for (let redirects = 0; ; redirects++) {
      const response = await inner(url, { ...init, redirect: 'manual' });
      const location = response.headers.get('location');
      if (response.status < 300 || response.status >= 400 || location === null) return response;
      const next = new URL(location, url);
      if (next.origin !== origin) {
        await response.body?.cancel().catch(() => {});
        onRefused(origin, next.origin);
        return response;
      }
      if (redirects >= MAX_REDIRECTS) return response;
      await response.body?.cancel().catch(() => {});
      url = next;
    }
  };
}
