import type { UIMessage, UIMessageChunk } from 'ai';
import { AssistantAssembler } from './assistant-assembler';
import type { ExecutionContext } from './execution-context';

/** Where a live delta sits: the checkpoint revision it builds on and its place after it. */
export interface DeltaPosition {
  baseRevision: number;
  seq: number;
}

/**
 * The assistant message of one execution and its checkpoints. Every chunk published as a live
 * delta is appended here; `checkpoint` saves the message holding all of them. Checkpoints run
 * exclusively (loop checkpoints and lease heartbeats take turns), so the next delta names the
 * revision of the last one.
 *
 * @example
 * const writer = new CheckpointWriter(context, message, baseRevision);
 * const position = writer.append(chunk);
 * if (writer.batchDue()) await writer.checkpoint('always');
 */
export class CheckpointWriter {
  readonly #context: ExecutionContext;
  readonly #assembler: AssistantAssembler;
  #baseRevision: number;
  #seq = 0;
  #pending = 0;
  /** Approximate bytes the pending chunks add, and the size of the last checkpoint. */
  #pendingBytes = 0;
  #pendingChanges = 0;
  #checkpointBytes = 0;
  #lastMessage: UIMessage;
  #tail: Promise<void> = Promise.resolve();

  constructor(context: ExecutionContext, message: UIMessage, baseRevision: number) {
    this.#context = context;
    this.#assembler = new AssistantAssembler(message);
    this.#lastMessage = message;
    this.#baseRevision = baseRevision;
  }

  /** The id of the assistant message (a resumed run continues it). */
  get messageId(): string {
    return this.#assembler.messageId;
  }

  /** The message as last checkpointed (or as the execution began). */
  get lastMessage(): UIMessage {
    return this.#lastMessage;
  }

  /** Settles when the checkpoints queued so far have run. */
  get settled(): Promise<void> {
    return this.#tail;
  }

  /** Adds a chunk to the message and the pending batch; returns its live delta's position. */
  append(chunk: UIMessageChunk): DeltaPosition {
    this.#assembler.push(chunk);
    this.#pending++;
    const position = { baseRevision: this.#baseRevision, seq: ++this.#seq };
    this.#pendingBytes += chunkBytes(chunk);
    if (changesMessage(chunk)) this.#pendingChanges++;
    return position;
  }

  /** An ordinary batch is due after `checkpointEveryEvents` parts (and enough growth, opt-in). */
  batchDue(): boolean {
    if (this.#pending < this.#context.deps.checkpointEveryEvents) return false;
    const growth = this.#context.deps.checkpointMinGrowth;
    return growth === undefined || this.#pendingBytes >= this.#checkpointBytes * growth;
  }

  /**
   * Checkpoints the assistant message with every chunk published so far. Runs exclusively
   * (loop checkpoints and lease heartbeats take turns), so the next delta names its revision.
   */
  checkpoint(when: 'always' | 'if-changed'): Promise<void> {
    const context = this.#context;
    const run = async () => {
      // The last batch of a run often holds only chunks that leave the message as it is
      // (`finish`, `error`, `abort`): rewriting the whole message for them is waste.
      if (context.stop.writesBroken || (when === 'if-changed' && this.#pendingChanges === 0)) {
        return;
      }
      const message = await this.#assembler.snapshot();
      this.#lastMessage = message;
      try {
        const run = await context.owned.saveAssistantCheckpoint(message);
        context.lastWriteAt = performance.now();
        this.#baseRevision = run.revision;
        this.#seq = 0;
        this.#pending = 0;
        this.#pendingChanges = 0;
        this.#pendingBytes = 0;
        if (context.deps.checkpointMinGrowth !== undefined) {
          this.#checkpointBytes = JSON.stringify(message).length;
        }
      } catch (error) {
        context.stop.onWriteError(error);
      }
    };
    const next = this.#tail.then(run);
    this.#tail = next;
    return next;
  }

  close(): void {
    this.#assembler.close();
  }
}

/** What a chunk adds to the message, roughly: the text of a delta, else its JSON. */
function chunkBytes(chunk: UIMessageChunk): number {
  switch (chunk.type) {
    case 'text-delta':
    case 'reasoning-delta':
      return chunk.delta.length;
    case 'tool-input-delta':
      return chunk.inputTextDelta.length;
    default:
      return 16;
  }
}

/** False for chunks after which the assembled message is unchanged. */
function changesMessage(chunk: UIMessageChunk): boolean {
  switch (chunk.type) {
    case 'start':
    case 'finish':
      return chunk.messageMetadata != null;
    case 'error':
    case 'abort':
    case 'finish-step':
      return false;
    default:
      return true;
  }
}
