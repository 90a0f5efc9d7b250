import { jsonError } from '../json-error';

/** A JSON request body, or the error `Response` to answer instead. */
export type JsonBody = { ok: true; value: unknown } | { ok: false; response: Response };

/**
 * Reads a JSON request body of at most `maxBytes` BYTES, counted while reading: a body over the
 * limit is refused (`413 body_too_large`) as soon as the limit is passed — or at once when its
 * `Content-Length` says so — and the rest is never read. `Content-Type` must be
 * `application/json` (`415 unsupported_media_type`); invalid UTF-8 or JSON is `400 bad_body`.
 * An empty body reads as `undefined`.
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
  const bytes = new Uint8Array(Math.min(maxBytes, Number.isFinite(declared) ? declared : 1024));
  let buffer = bytes;
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
        if (length + value.byteLength > buffer.byteLength) {
          const grown = new Uint8Array(
            Math.min(maxBytes, Math.max(buffer.byteLength * 2, length + value.byteLength)),
          );
          grown.set(buffer.subarray(0, length));
          buffer = grown;
        }
        buffer.set(value, length);
        length += value.byteLength;
      }
    } finally {
      reader.releaseLock();
    }
  }
  if (length === 0) return { ok: true, value: undefined };
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(buffer.subarray(0, length));
  } catch {
    return refuse(400, 'bad_body', 'The body is not valid UTF-8');
  }
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return refuse(400, 'bad_body', 'The body is not valid JSON');
  }
}

function refuse(
  status: number,
  code: 'unsupported_media_type' | 'body_too_large' | 'bad_body',
  message: string,
): JsonBody {
  return { ok: false, response: jsonError(status, code, message) };
}
