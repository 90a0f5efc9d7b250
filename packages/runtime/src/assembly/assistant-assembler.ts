import { readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import { compactChunks } from './compact-chunks';

const SENTINEL = '\u0000runlight-assembler-sentinel:';
/** Pushed chunks held before they are handed to the SDK anyway (a bound on the buffer). */
const MAX_HELD_CHUNKS = 256;

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
 * Pushed chunks are held and handed to the SDK compacted (`compactChunks`: consecutive deltas
 * of one part merged) when a snapshot or an edit needs them. The SDK builds a structured clone
 * of the whole message for every chunk it processes, so feeding it each token made assembling
 * the runner's most expensive per-token step; the compacted chunks give the same message.
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
  /** Pushed, not yet handed to the SDK (in order). */
  #held: UIMessageChunk[] = [];
  #sentinels = 0;
  #ended = false;
  /**
   * The part a takeover continues (`continuesText`): the message's last part, a streaming text
   * part. Text chunks whose start this stream never had extend it; the SDK knows no such part.
   */
  readonly #continued: TextLike | undefined;
  readonly #startedText = new Set<string>();
  readonly #edits = new Map<string, () => void>();

  constructor(message: UIMessage, options: { continuesText?: boolean } = {}) {
    this.#message = structuredClone(message);
    const last = this.#message.parts.at(-1);
    this.#continued =
      options.continuesText && last?.type === 'text' && last.state === 'streaming'
        ? last
        : undefined;
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
        const edit = this.#edits.get(key);
        if (edit) {
          this.#edits.delete(key);
          edit();
          return;
        }
        const waiter = this.#waiters.get(key);
        if (waiter) {
          this.#waiters.delete(key);
          waiter();
        }
      },
    });
    // Drain the SDK's snapshots: the message itself is read in place. The SDK ends the stream
    // at a chunk it refuses (e.g. a result for an unknown tool call); waiters must not hang.
    void (async () => {
      for await (const _ of messages) {
      }
    })()
      .catch(() => {})
      .finally(() => {
        this.#ended = true;
        for (const waiter of this.#waiters.values()) waiter();
        this.#waiters.clear();
      });
  }

  get messageId(): string {
    return this.#message.id;
  }

  push(chunk: UIMessageChunk): void {
    this.#held.push(chunk);
    if (this.#held.length >= MAX_HELD_CHUNKS) this.#handOver();
  }

  /** The message with every chunk pushed so far, as an independent copy. */
  async snapshot(): Promise<UIMessage> {
    await this.#processed();
    return structuredClone(this.#message);
  }

  /**
   * Runs `edit` on the message itself once every chunk pushed so far is processed: for what
   * the SDK cannot apply (a delta continuing a part begun before the message it was given).
   */
  async edit(edit: (message: UIMessage) => void): Promise<void> {
    await this.#processed();
    edit(this.#message);
  }

  /** Hands the held chunks to the SDK, compacted, in order. */
  #handOver(): void {
    if (this.#held.length === 0) return;
    const held = this.#held;
    this.#held = [];
    if (this.#ended) return;
    for (const chunk of held.length === 1 ? held : compactChunks(held)) {
      this.#controller.enqueue(this.#continuing(chunk) ?? chunk);
    }
  }

  /**
   * A chunk extending the continued part, as an `error` chunk the SDK hands back to `onError`
   * in its order (never adding it to the message), where it is applied; else undefined.
   */
  #continuing(chunk: UIMessageChunk): UIMessageChunk | undefined {
    if (chunk.type === 'text-start') this.#startedText.add(chunk.id);
    if (chunk.type !== 'text-delta' && chunk.type !== 'text-end') return undefined;
    const part = this.#continued;
    if (part === undefined || this.#startedText.has(chunk.id)) return undefined;
    const key = `${SENTINEL}edit-${++this.#sentinels}`;
    this.#edits.set(key, () => {
      if (chunk.type === 'text-delta') part.text += chunk.delta;
      else part.state = 'done';
    });
    return { type: 'error', errorText: key };
  }

  #processed(): Promise<void> {
    this.#handOver();
    if (this.#ended) return Promise.resolve();
    const key = `${SENTINEL}${++this.#sentinels}`;
    const processed = new Promise<void>((resolve) => this.#waiters.set(key, resolve));
    this.#controller.enqueue({ type: 'error', errorText: key });
    return processed;
  }

  close(): void {
    try {
      this.#controller.close();
    } catch {
      // already closed
    }
  }
}

type Part = UIMessage['parts'][number];
type TextLike = Extract<Part, { type: 'text' | 'reasoning' }>;

function continuedPart(parts: Part[], type: 'text' | 'reasoning', id: string): number | undefined {
  for (let index = parts.length - 1; index >= 0; index--) {
    const part = parts[index]!;
    if (part.type !== type) continue;
    const named = (part as { id?: unknown }).id;
    if (part.state === 'streaming' && (named === undefined || named === id)) return index;
    if (named === undefined) return undefined;
  }
  return undefined;
}

/**
 * The message `base` with `chunks` applied, by the AI SDK's `readUIMessageStream`. The SDK
 * forgets which text or reasoning part a chunk id names once a message is stored, so a delta or
 * end continuing a part begun before `base` (a consolidation cut mid-part) is applied here to
 * that part — its last streaming part of the kind — exactly as the SDK would have.
 *
 * @example
 * await assembleMessage(consolidated, [{ type: 'text-delta', id: 't', delta: ' more' }]);
 */
export async function assembleMessage(
  base: UIMessage,
  chunks: readonly UIMessageChunk[],
): Promise<UIMessage> {
  const assembler = new AssistantAssembler(base);
  const started = new Set<string>();
  try {
    for (const chunk of chunks) {
      const kind = chunk.type.startsWith('text-')
        ? 'text'
        : chunk.type.startsWith('reasoning-')
          ? 'reasoning'
          : null;
      const id = kind === null ? undefined : (chunk as { id?: string }).id;
      if (kind === null || id === undefined) {
        assembler.push(chunk);
        continue;
      }
      const key = `${kind}:${id}`;
      if (chunk.type.endsWith('-start')) started.add(key);
      if (started.has(key)) {
        if (chunk.type.endsWith('-end')) started.delete(key);
        assembler.push(chunk);
        continue;
      }
      await assembler.edit((message) => {
        const index = continuedPart(message.parts, kind, id);
        // No such part: the SDK would refuse the chunk too.
        if (index === undefined) return;
        const part = message.parts[index] as TextLike;
        const metadata = (chunk as { providerMetadata?: TextLike['providerMetadata'] })
          .providerMetadata;
        if (metadata != null) part.providerMetadata = metadata;
        if ('delta' in chunk) part.text += chunk.delta;
        else part.state = 'done';
      });
    }
    return await assembler.snapshot();
  } finally {
    assembler.close();
  }
}
