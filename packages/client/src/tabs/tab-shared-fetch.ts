import type { OpenRunStream } from './run-hub';
import { parsePosition } from './stream-position';
import { defaultTabEnvironment, type TabEnvironment } from './tab-environment';
import { TabShare } from './tab-share';

export interface TabSharingOptions {
  /** Where the run handlers are mounted (as the client's `baseUrl`). */
  baseUrl: string;
  /** The transport the leading tab reads the streams with (e.g. `RunMultiplexer.fetch`). */
  fetch: typeof globalThis.fetch;
  /** The browser's channel and locks; `null` turns sharing off. Default: the page's, if any. */
  environment?: TabEnvironment | null;
}

/** `fetch` with each run's event stream shared between the tabs; `shares` for diagnostics. */
export type TabSharedFetch = typeof globalThis.fetch & {
  /** The groups of this tab (one per distinct `baseUrl` + headers + credentials). */
  readonly shares: ReadonlyMap<string, TabShare>;
};

const EVENTS_PATH = /\/runs\/([^/]+)\/events$/;
/** Request headers that differ per request of one client, not per client. */
const PER_REQUEST = new Set(['last-event-id']);

/** FNV-1a: the group name must not carry a token verbatim (it is only a name, never a secret). */
function hash(text: string): string {
  let value = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    value ^= text.charCodeAt(index);
    value = Math.imul(value, 0x01000193);
  }
  return (value >>> 0).toString(36);
}

/**
 * Shares each run's event stream between the tabs of this origin (see `TabShare`): a
 * `GET {baseUrl}/runs/:id/events` is answered from the leading tab's stream; every other
 * request goes to `fetch` unchanged. Tabs share only when their requests are the same —
 * `baseUrl`, headers (an `Authorization` included) and credentials: a tab signed in as someone
 * else, or with its own headers, keeps its own streams. Where the page has no
 * `BroadcastChannel` or `navigator.locks`, this is `fetch` itself.
 *
 * @example
 * const multiplexer = new RunMultiplexer({ baseUrl: '/api', fetch });
 * const client = createRunlightClient({ baseUrl: '/api', fetch: shareTabs({ baseUrl: '/api', fetch: multiplexer.fetch }), shareTabs: false });
 */
export function shareTabs(options: TabSharingOptions): TabSharedFetch {
  const environment =
    options.environment === undefined ? defaultTabEnvironment() : options.environment;
  const upstream = options.fetch;
  const shares = new Map<string, TabShare>();
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const shared = ((input, init) => {
    if (environment === null) return upstream(input, init);
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const path = url.split('?')[0]!;
    const match = url.startsWith(baseUrl) ? EVENTS_PATH.exec(path) : null;
    const headers = new Headers(init?.headers);
    const position = parsePosition(headers.get('last-event-id') ?? '0');
    if (
      match === null ||
      position === null ||
      (init?.method ?? 'GET') !== 'GET' ||
      url.includes('?') ||
      typeof input !== 'string'
    )
      return upstream(input, init);
    const runId = decodeURIComponent(match[1]!);
    const kept = [...headers].filter(([name]) => !PER_REQUEST.has(name)).sort();
    const origin = (globalThis as { location?: { href: string } }).location?.href;
    const absolute = origin === undefined ? baseUrl : new URL(baseUrl, origin).href;
    const key = `runlight-tabs:1:${hash(JSON.stringify([absolute, kept, init?.credentials ?? null]))}`;
    let share = shares.get(key);
    if (share === undefined) {
      const openStream =
        (id: string): OpenRunStream =>
        (cursor, signal) => {
          const streamHeaders = new Headers(kept);
          streamHeaders.set('last-event-id', cursor);
          return upstream(`${baseUrl}/runs/${encodeURIComponent(id)}/events`, {
            headers: streamHeaders,
            ...(init?.credentials === undefined ? {} : { credentials: init.credentials }),
            signal,
          });
        };
      const created: TabShare = new TabShare({
        environment,
        name: key,
        openStream,
        onIdle: () => {
          if (shares.get(key) === created) shares.delete(key);
        },
      });
      share = created;
      shares.set(key, share);
    }
    return share.watch(runId, position, init?.signal ?? undefined);
  }) as TabSharedFetch;
  Object.defineProperty(shared, 'shares', { value: shares });
  return shared;
}
