import { jsonError } from '../json-error';
import { jsonDepthExceeds } from './json-depth';

/** A JSON request body, or the error `Response` to answer instead. */
export type JsonBody =
  | { ok: true; value: unknown }
  | {
      ok: false;
      response: Response;
      /**
       * `true` when the client stopped sending before the body ended (an aborted upload): its
       * own doing, so it is never reported to `onError`; nobody reads the answer.
       */
      aborted?: boolean;
    };

/** Deepest nesting of arrays and objects a JSON body may have. */
export const MAX_JSON_DEPTH = 64;

/**
 * Reads a JSON request body of at most `maxBytes` BYTES, counted while reading: a body over the
 * limit is refused (`413 body_too_large`) as soon as the limit is passed — or at once when its
 * `Content-Length` says so — and the rest is never read. Memory follows the bytes that arrived,
 * never what `Content-Length` claims. `Content-Type` must be `application/json` (`415
 * unsupported_media_type`); invalid UTF-8 or JSON, or arrays and objects nested deeper than
 * `MAX_JSON_DEPTH` (64), is `400 bad_body`. An upload the client aborts is `400 bad_body` with
 * `aborted: true` (never an error of the server). An empty body reads as `undefined`.
 *
 * @example
 * const body = await readJsonBody(request, 64 * 1024);
 * if (!body.ok) return body.response;
 */
export async function readJsonBody(request: Request, maxBytes: number): Promise<JsonBody> {
  const type = request.headers.get('content-type') ?? '';
  if (!/^application\/json\s*(;|$)/i.test(type.trim())) {
    return refuse(415, 'unsupported_media_type', 'The body must be application/json');
  }
  const tooLarge = () => refuse(413, 'body_too_large', `The body exceeds ${maxBytes} bytes`);
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) return tooLarge();
  // The chunks as they arrive, joined once at the end: nothing is allocated ahead of the bytes.
  const chunks: Uint8Array[] = [];
  let length = 0;
  if (request.body !== null) {
    const reader = request.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (length + value.byteLength > maxBytes) {
          await reader.cancel().catch(() => {});
          return tooLarge();
        }
        chunks.push(value);
        length += value.byteLength;
      }
    } catch {
      // The upload ended early (the client aborted, its connection dropped): nothing to parse.
      return {
        ok: false,
        aborted: true,
        response: jsonError(400, 'bad_body', 'The body ended before it was complete'),
      };
    } finally {
      reader.releaseLock();
    }
  }
  if (length === 0) return { ok: true, value: undefined };
  const bytes = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return refuse(400, 'bad_body', 'The body is not valid UTF-8');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return refuse(400, 'bad_body', 'The body is not valid JSON');
  }
  // Parsing is iterative, but whatever walks the value next (a schema, the app's code) may
  // recurse: a 200,000-deep body overflowed the stack there (a 500).
  if (jsonDepthExceeds(value, MAX_JSON_DEPTH)) {
    return refuse(400, 'bad_body', `The body nests deeper than ${MAX_JSON_DEPTH} levels`);
  }
  return { ok: true, value };
}

function refuse(
  status: number,
  code: 'unsupported_media_type' | 'body_too_large' | 'bad_body',
  message: string,
): JsonBody {
  return { ok: false, response: jsonError(status, code, message) };
}
