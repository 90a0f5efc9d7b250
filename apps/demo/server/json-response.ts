/** Codes of the demo API's JSON errors (same body shape as the runtime's handlers). */
export type DemoErrorCode =
  | 'bad_request'
  | 'run_not_found'
  | 'not_awaiting_approval'
  | 'not_found'
  | 'method_not_allowed'
  | 'forbidden'
  | 'unsupported_media_type'
  | 'body_too_large'
  | 'internal';

/**
 * `{ "error": { "code", "message" } }` with `status`. Never pass internal error text.
 *
 * @example
 * return demoError(400, 'bad_request', 'scenario: Invalid option');
 */
export function demoError(status: number, code: DemoErrorCode, message: string): Response {
  return Response.json(
    { error: { code, message } },
    { status, headers: { 'Cache-Control': 'no-store' } },
  );
}

/** A JSON answer that is never cached. */
export function demoJson(body: unknown, status = 200): Response {
  return Response.json(body, { status, headers: { 'Cache-Control': 'no-store' } });
}
