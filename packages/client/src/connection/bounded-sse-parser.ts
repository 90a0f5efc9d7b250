import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { RunlightClientError } from '../errors/runlight-client-error';

/**
 * `eventsource-parser` with a cap on what one event may cost: the BYTES fed since the last
 * complete event or comment. The parser keeps an unfinished line and the fields of an
 * unfinished event in memory, so that count also bounds its buffer: an event line that never
 * ends, or one 50 MiB event, is refused at the cap (plus at most one network chunk) instead
 * of growing the page without bound. Throws `RunlightClientError` `limit-exceeded`.
 *
 * @example
 * const parser = new BoundedSseParser(16 * 1024 * 1024, (message) => batch.push(message));
 * parser.feed(chunk); // Uint8Array from the response body
 */
export class BoundedSseParser {
  readonly #maxEventBytes: number;
  readonly #decoder = new TextDecoder();
  readonly #parser;
  #sinceComplete = 0;
  #completed = false;

  constructor(maxEventBytes: number, onEvent: (message: EventSourceMessage) => void) {
    this.#maxEventBytes = maxEventBytes;
    this.#parser = createParser({
      onEvent: (message) => {
        this.#completed = true;
        onEvent(message);
      },
      onComment: () => {
        this.#completed = true;
      },
    });
  }

  /** Feeds one chunk of the body. */
  feed(chunk: Uint8Array): void {
    this.#completed = false;
    const text = this.#decoder.decode(chunk, { stream: true });
    // Checked before parsing: a chunk that alone breaks the cap is not even parsed.
    if (this.#sinceComplete + chunk.byteLength > this.#maxEventBytes && !text.includes('\n')) {
      this.#refuse();
    }
    this.#parser.feed(text);
    // Bytes after the last complete event in this chunk are at most this chunk: counted from 0.
    this.#sinceComplete = this.#completed ? 0 : this.#sinceComplete + chunk.byteLength;
    if (this.#sinceComplete > this.#maxEventBytes) this.#refuse();
  }

  #refuse(): never {
    this.#parser.reset();
    throw new RunlightClientError(
      'limit-exceeded',
      `An SSE event exceeded ${this.#maxEventBytes} bytes (maxEventBytes) before it ended`,
      { field: 'maxEventBytes' },
    );
  }
}
