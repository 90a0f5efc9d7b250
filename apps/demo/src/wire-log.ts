/** One message as it arrived on the wire of a client's event stream. */
export interface WireEntry {
  /** Position in this log (a React key). */
  index: number;
  /** Client receipt time — shown only in the raw log, never as a run time. */
  receivedAt: number;
  event: string;
  id: string | undefined;
  data: string;
}

const LIMIT = 400;

/**
 * The raw event log of one client: a `fetch` wrapper tees every `text/event-stream` response
 * body and records its messages; `subscribe` / `getSnapshot` suit `useSyncExternalStore`.
 * The client itself still parses and merges the stream — this is only a window onto it.
 *
 * @example
 * const log = new WireLog();
 * const client = createRunlightClient({ baseUrl: '/api', fetch: log.fetch });
 */
export class WireLog {
  #entries: readonly WireEntry[] = [];
  #count = 0;
  readonly #listeners = new Set<() => void>();
  readonly #messageListeners = new Set<(entry: WireEntry) => void>();
  #scheduled = false;

  readonly #inner: typeof globalThis.fetch;

  /** `inner`: the transport under the log (default the global `fetch`). */
  constructor(inner: typeof globalThis.fetch = (input, init) => globalThis.fetch(input, init)) {
    this.#inner = inner;
  }

  readonly fetch: typeof globalThis.fetch = async (input, init) => {
    const response = await this.#inner(input, init);
    const type = response.headers.get('content-type') ?? '';
    if (!type.startsWith('text/event-stream') || response.body === null) return response;
    const [mine, theirs] = response.body.tee();
    void this.#read(mine);
    return new Response(theirs, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };

  getSnapshot = (): readonly WireEntry[] => this.#entries;

  subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  /** Calls `listener` synchronously with every message as it is parsed. */
  onMessage(listener: (entry: WireEntry) => void): () => void {
    this.#messageListeners.add(listener);
    return () => this.#messageListeners.delete(listener);
  }

  /** Adds a local line (a connection opened or broke off). */
  note(text: string): void {
    this.#push({ event: 'client', id: undefined, data: text });
  }

  async #read(body: ReadableStream<Uint8Array>): Promise<void> {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
        let end = buffer.indexOf('\n\n');
        while (end >= 0) {
          this.#parse(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf('\n\n');
        }
      }
      this.note('stream ended');
    } catch {
      this.note('stream broke off');
    }
  }

  #parse(block: string): void {
    let event = 'message';
    let id: string | undefined;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') event = value;
      else if (field === 'id') id = value;
      else if (field === 'data') data.push(value);
    }
    if (data.length > 0) this.#push({ event, id, data: data.join('\n') });
  }

  #push(fields: Omit<WireEntry, 'index' | 'receivedAt'>): void {
    const entry = { ...fields, index: this.#count++, receivedAt: Date.now() };
    for (const listener of [...this.#messageListeners]) listener(entry);
    const next = [...this.#entries, entry];
    this.#entries = next.length > LIMIT ? next.slice(next.length - LIMIT) : next;
    if (this.#scheduled) return;
    this.#scheduled = true;
    // One render per burst of messages.
    setTimeout(() => {
      this.#scheduled = false;
      for (const listener of [...this.#listeners]) listener();
    }, 30);
  }
}
