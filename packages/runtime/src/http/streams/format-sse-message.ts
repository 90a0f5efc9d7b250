/**
 * One Server-Sent Events message. `data` must be a single line — JSON from `JSON.stringify`
 * always is (it escapes newlines) — and `id` must hold no line break; both are ours, never
 * client input, so neither is re-checked on the hot path.
 *
 * @example
 * formatSseMessage('run-delta', '7:5:3', '{"type":"run-delta"}');
 * // 'event: run-delta\nid: 7:5:3\ndata: {"type":"run-delta"}\n\n'
 */
export function formatSseMessage(event: string, id: string | null, data: string): string {
  return id === null
    ? `event: ${event}\ndata: ${data}\n\n`
    : `event: ${event}\nid: ${id}\ndata: ${data}\n\n`;
}

/** The heartbeat: an SSE comment, ignored by every parser, that keeps proxies from timing out. */
export const SSE_PING = ': ping\n\n';

/**
 * The first bytes of every event stream, written the moment the response is made: a host that
 * holds the headers until the body's first chunk (Next.js route handlers, some proxies) sends
 * them at once, so a client reads `live` without waiting for the first event or heartbeat. A
 * comment: every SSE reader ignores it.
 */
export const SSE_OPENING = ': open\n\n';
