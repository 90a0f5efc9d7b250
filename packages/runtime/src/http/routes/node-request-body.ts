import type { IncomingMessage, ServerResponse } from 'node:http';

/** Most bytes of a body nobody reads any more that are drained after the answer. */
export const DEFAULT_MAX_DRAIN_BYTES = 64 * 1024 * 1024;

/**
 * The body of a `node:http` request as a Web stream that reads the socket only when pulled, so
 * an early answer can still reach the client:
 *
 * - A handler that never reads it (a `401` asked before the body) leaves the request to Node,
 *   which discards the rest off the wire and keeps the connection.
 * - A handler that stops reading (a `413` past the limit) cancels it: the rest is discarded up
 *   to `maxDrainBytes` and the socket is left alone — a cancelled `Readable.toWeb` stream
 *   destroyed the socket, and the client's next write met a reset instead of the answer
 *   (`EPIPE`, `ECONNRESET`). Past the bound, the connection closes once the answer is sent.
 * - A client that goes away mid-body errors the stream (the route answers without `onError`).
 *
 * @example
 * new Request(url, { method: 'POST', body: nodeRequestBody(req), duplex: 'half' });
 */
export function nodeRequestBody(
  incoming: IncomingMessage,
  options: { maxDrainBytes?: number; response?: ServerResponse } = {},
): ReadableStream<Uint8Array> {
  const maxDrainBytes = options.maxDrainBytes ?? DEFAULT_MAX_DRAIN_BYTES;
  let attached = false;
  let finished = false;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const onData = (chunk: Buffer) => {
    controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    if ((controller.desiredSize ?? 0) <= 0) incoming.pause();
  };
  const detach = () => {
    incoming.off('data', onData);
    incoming.off('end', onEnd);
    incoming.off('error', onGone);
    incoming.off('close', onGone);
  };
  const onEnd = () => {
    if (finished) return;
    finished = true;
    detach();
    controller.close();
  };
  const onGone = () => {
    if (finished || incoming.complete) return;
    finished = true;
    detach();
    controller.error(new Error('The client went away before the body ended'));
  };
  return new ReadableStream<Uint8Array>(
    {
      start(streamController) {
        controller = streamController;
      },
      pull() {
        if (!attached) {
          attached = true;
          incoming.on('data', onData);
          incoming.on('end', onEnd);
          incoming.on('error', onGone);
          incoming.on('close', onGone);
        }
        incoming.resume();
      },
      cancel() {
        if (finished) return;
        finished = true;
        detach();
        drain(incoming, maxDrainBytes, options.response);
      },
    },
    // Pulled a chunk at a time: what is buffered ahead of the reader stays small.
    { highWaterMark: 0 },
  );
}

/**
 * Discards the rest of a body nobody reads, up to `maxBytes`, so the client can finish sending
 * and read the answer; past that, the connection is closed once the answer has been sent.
 */
function drain(incoming: IncomingMessage, maxBytes: number, response?: ServerResponse): void {
  let drained = 0;
  const discard = (chunk: Buffer) => {
    drained += chunk.byteLength;
    if (drained <= maxBytes) return;
    incoming.off('data', discard);
    incoming.pause();
    // The answer goes out first; then the connection ends (its socket may still be writing).
    const close = () => {
      incoming.socket.end();
    };
    if (!response || response.writableFinished) close();
    else response.once('finish', close);
  };
  incoming.on('data', discard);
  incoming.on('error', () => {});
  incoming.resume();
}
