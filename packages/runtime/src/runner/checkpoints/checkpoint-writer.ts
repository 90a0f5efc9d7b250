import type { UIMessage, UIMessageChunk } from 'ai';
import { AssistantAssembler } from '../../assembly/assistant-assembler';
import { compactChunks } from '../../assembly/compact-chunks';
import type { ExecutionContext } from '../execution-context';

/** Where a live delta sits: the assistant write it builds on and its place after it. */
export interface DeltaPosition {
  baseRevision: number;
  seq: number;
}

/**
 * A consolidation (the whole message) is written once the appends since the last one outweigh
 * it this many times (and at least `MIN_CONSOLIDATION_BYTES`): the consolidations of a growing
 * answer then form a geometric series — linear in total — and a read replays at most this
 * many times the message in appends.
 *
 * Below 64 KiB (≈ 8,000 tokens) a read replays the appends alone — a few hundred small events,
 * one query, well under a millisecond to assemble — and an answer writes no copy of itself;
 * at 16 KiB a 2,000-token answer spent 0.8× its size on one consolidation near its end.
 */
export const CONSOLIDATION_FACTOR = 4;
const MIN_CONSOLIDATION_BYTES = 64 * 1024;

/**
 * The assistant message of one execution and its durable writes. Every chunk published as a
 * live delta is appended here; `checkpoint` makes the chunks since the last write durable as
 * an `assistant-append` (compacted: one delta per part run) extending that write — or, now and
 * then, as a consolidating `assistant-checkpoint` of the whole message: first when an execution
 * continues a stored message (a resume may have changed it: answered approvals, closed
 * abandoned parts), then whenever the appends since the last consolidation outweigh it
 * `CONSOLIDATION_FACTOR` times. Writes run exclusively (loop checkpoints and lease heartbeats
 * take turns), so the next delta names the revision of the last one.
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
  /** The chunks published since the last durable write, in order. */
  #pending: UIMessageChunk[] = [];
  /** Approximate bytes the pending chunks add, and the size of the message (for min growth). */
  #pendingBytes = 0;
  #pendingChanges = 0;
  #checkpointBytes = 0;
  /** Whether the next write must hold the whole message. */
  #consolidate: boolean;
  /** JSON bytes of the last consolidated message, and of the appends written since. */
  #consolidatedBytes = 0;
  #appendedBytes = 0;
  #lastMessage: UIMessage;
  #tail: Promise<void> = Promise.resolve();
  /** Checkpoints queued and not yet run to their end. */
  #writing = 0;

  constructor(
    context: ExecutionContext,
    message: UIMessage,
    baseRevision: number,
    options: { continuesText?: boolean } = {},
  ) {
    this.#context = context;
    this.#assembler = new AssistantAssembler(message, options);
    this.#lastMessage = message;
    this.#baseRevision = baseRevision;
    this.#consolidate = message.parts.length > 0;
  }

  /** The id of the assistant message (a resumed run continues it). */
  get messageId(): string {
    return this.#assembler.messageId;
  }

  /** The message as last written (or as the execution began). */
  get lastMessage(): UIMessage {
    return this.#lastMessage;
  }

  /** Settles when the checkpoints queued so far have run. */
  get settled(): Promise<void> {
    return this.#tail;
  }

  /** True while a checkpoint is queued or in flight (`settled` is then pending). */
  get writing(): boolean {
    return this.#writing > 0;
  }

  /** Adds a chunk to the message and the pending batch; returns its live delta's position. */
  append(chunk: UIMessageChunk): DeltaPosition {
    this.#assembler.push(chunk);
    this.#pending.push(chunk);
    const position = { baseRevision: this.#baseRevision, seq: ++this.#seq };
    this.#pendingBytes += chunkBytes(chunk);
    if (changesMessage(chunk)) this.#pendingChanges++;
    return position;
  }

  /** An ordinary batch is due after `checkpointEveryEvents` parts (and enough growth, opt-in). */
  batchDue(): boolean {
    if (this.#pending.length < this.#context.deps.checkpointEveryEvents) return false;
    const growth = this.#context.deps.checkpointMinGrowth;
    return growth === undefined || this.#pendingBytes >= this.#checkpointBytes * growth;
  }

  /**
   * The first write of an execution that is not its run's first (a takeover, a resume): the
   * whole message as this owner continues it — even an empty one — so that its live deltas are
   * numbered on a write of its own. A previous owner's deltas on the old base (those it never
   * made durable) then cannot be taken for this owner's: a client falls back to this checkpoint
   * and applies the new deltas from `seq` 1 on it (packages/client/SPEC.md rule 3.5).
   */
  rebase(): Promise<void> {
    this.#consolidate = true;
    return this.checkpoint('always');
  }

  /**
   * Makes every chunk published so far durable (an append, or a consolidation). Runs
   * exclusively (loop checkpoints and lease heartbeats take turns), so the next delta names
   * its revision. With nothing to write, `'always'` renews the lease instead (the heartbeat).
   */
  checkpoint(when: 'always' | 'if-changed'): Promise<void> {
    const context = this.#context;
    const run = async () => {
      // The last batch of a run often holds only chunks that leave the message as it is
      // (`finish`, `error`, `abort`): writing them is waste.
      if (
        context.stop.writesBroken ||
        (when === 'if-changed' && this.#pendingChanges === 0 && !this.#consolidate)
      ) {
        return;
      }
      if (this.#pending.length === 0 && !this.#consolidate) {
        try {
          await context.owned.renewLease();
          context.lastWriteAt = performance.now();
        } catch (error) {
          context.stop.onWriteError(error);
        }
        return;
      }
      // One synchronous cut: the batch and the message hold exactly the same chunks, even when
      // a chunk is appended while this write is in flight (a heartbeat's write).
      const batch = this.#pending.slice();
      const snapshot = this.#assembler.snapshot();
      try {
        const message = await snapshot;
        const compacted = compactChunks(batch);
        const kept = compacted.filter(
          (chunk) => chunk.type === 'finish-step' || changesMessage(chunk),
        );
        const chunks = kept.length > 0 ? kept : compacted;
        const appendBytes = JSON.stringify(chunks).length;
        const consolidate =
          this.#consolidate ||
          chunks.length === 0 ||
          (this.#appendedBytes + appendBytes >= MIN_CONSOLIDATION_BYTES &&
            this.#appendedBytes + appendBytes > this.#consolidatedBytes * CONSOLIDATION_FACTOR);
        const written = consolidate
          ? await context.owned.saveAssistantCheckpoint(message)
          : await context.owned.appendAssistant({
              messageId: this.messageId,
              baseRevision: this.#baseRevision,
              chunks,
            });
        context.lastWriteAt = performance.now();
        this.#lastMessage = message;
        this.#baseRevision = written.revision;
        this.#seq = 0;
        // Chunks appended while this write was in flight stay pending for the next one.
        this.#pending = this.#pending.slice(batch.length);
        this.#pendingChanges = this.#pending.filter(changesMessage).length;
        this.#pendingBytes = this.#pending.reduce((sum, chunk) => sum + chunkBytes(chunk), 0);
        if (consolidate) {
          this.#consolidate = false;
          this.#consolidatedBytes = JSON.stringify(message).length;
          this.#appendedBytes = 0;
          this.#checkpointBytes = this.#consolidatedBytes;
        } else {
          this.#appendedBytes += appendBytes;
          this.#checkpointBytes += appendBytes;
        }
      } catch (error) {
        context.stop.onWriteError(error);
      }
    };
    this.#writing++;
    const next = this.#tail.then(run).finally(() => {
      this.#writing--;
    });
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
