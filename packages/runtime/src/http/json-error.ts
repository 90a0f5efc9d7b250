/** Codes of the JSON error bodies the HTTP handlers answer with. */
export type RunHttpErrorCode =
  | 'run_not_found'
  | 'runtime_closed'
  | 'bad_path'
  | 'forbidden'
  | 'cross_site'
  | 'unsupported_media_type'
  | 'body_too_large'
  | 'bad_body'
  | 'not_awaiting_approval'
  | 'run_executing'
  | 'already_resuming'
  | 'run_ended'
  | 'not_supported'
  | 'bad_cursor'
  | 'bad_limit'
  | 'bad_revision'
  | 'event_not_found'
  | 'bad_run_id'
  | 'method_not_allowed'
  | 'not_found'
  | 'storage_unavailable'
  | 'internal';

/** The body of every error response: `{ "error": { "code", "message" } }`. */
export interface RunHttpErrorBody {
  error: { code: RunHttpErrorCode; message: string };
}

/** The only message an internal failure ever gets: details stay in the server's `onError`. */
export const INTERNAL_ERROR_MESSAGE = 'The server could not answer this request.';

/**
 * A JSON error response. Never pass internal error text as `message`: it may hold connection
 * strings, prompts or stack frames.
 *
 * @example
 * return jsonError(404, 'run_not_found', 'Run run-1 does not exist');
 */
export function jsonError(
  status: number,
  code: RunHttpErrorCode,
  message: string,
  headers: Record<string, string> = {},
): Response {
  const body: RunHttpErrorBody = { error: { code, message } };
  return Response.json(body, {
    status,
    headers: { 'Cache-Control': 'no-store', ...headers },
  });
}
