import { readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';

const SENTINEL = '\u0000runlight-assembler-sentinel:';

/**
 * Assembles this run's assistant `UIMessage` from its UI chunks with the AI SDK's own
 * `readUIMessageStream` (continuing `message` when the run resumes), so tool states,
 * approvals and step boundaries follow the SDK exactly.
 *
 * `snapshot()` returns the message holding every chunk pushed before it. The SDK processes
 * chunks asynchronously and emits no snapshot for some of them (`start-step`), so a snapshot
 * pushes a sentinel `error` chunk — which the SDK processes in order, reports to `onError` and
 * never adds to the message — and waits until it comes back.
 *
 * @example
 * const assembler = new AssistantAssembler({ id: 'm1', role: 'assistant', parts: [] });
 * assembler.push({ type: 'text-start', id: 't' });
 * assembler.push({ type: 'text-delta', id: 't', delta: 'Hi' });
 * (await assembler.snapshot()).parts; // [{ type: 'text', text: 'Hi', state: 'streaming' }]
 */
export class AssistantAssembler {
  /** Mutated in place by the SDK (it continues the message object it is given). */
  readonly #message: UIMessage;
  readonly #controller: ReadableStreamDefaultController<UIMessageChunk>;
  readonly #waiters = new Map<string, () => void>();
  #sentinels = 0;

  constructor(message: UIMessage) {
    this.#message = structuredClone(message);
    let controller: ReadableStreamDefaultController<UIMessageChunk> | undefined;
    const stream = new ReadableStream<UIMessageChunk>({
      start: (c) => {
        controller = c;
      },
    });
    this.#controller = controller!;
    const messages = readUIMessageStream({
      message: this.#message,
      stream,
      onError: (error) => {
        const key = error instanceof Error ? error.message : '';
        const waiter = this.#waiters.get(key);
        if (waiter) {
          this.#waiters.delete(key);
          waiter();
        }
      },
    });
    // Drain the SDK's snapshots: the message itself is read in place.
    void (async () => {
      for await (const _ of messages) {
      }
    })().catch(() => {});
  }

  get messageId(): string {
    return this.#message.id;
  }

  push(chunk: UIMessageChunk): void {
    this.#controller.enqueue(chunk);
  }

  /** The message with every chunk pushed so far, as an independent copy. */
  async snapshot(): Promise<UIMessage> {
    const key = `${SENTINEL}${++this.#sentinels}`;
    const processed = new Promise<void>((resolve) => this.#waiters.set(key, resolve));
    this.#controller.enqueue({ type: 'error', errorText: key });
    await processed;
    return structuredClone(this.#message);
  }

  close(): void {
    try {
      this.#controller.close();
    } catch {
      // already closed
    }
  }
}
