import type { UIMessageChunk } from 'ai';
import type { ExecutionContext } from '../execution-context';
import { isStructuralChunk } from './checkpoint-boundary';
import type { CheckpointWriter } from './checkpoint-writer';

/**
 * What the consumer tells the execution's step bookkeeping (`StepSequence` of `admission/`, which
 * imports `lifecycle/`, which imports this folder: named here, not imported, so the folders
 * do not loop — issue 38).
 */
export interface CommittedSteps {
  /** Step `step`'s finish-step checkpoint committed: the next step's admission may go. */
  committed(step: number): void;
}

/**
 * The sequential consumer of one execution's UI chunks: each is appended to the message and
 * published as a live delta at once; an ordinary batch or a structural boundary is then
 * checkpointed (awaited) before the next chunk is read, and a step finish that committed
 * releases the next step's admission. After ownership is lost the rest is drained unread.
 *
 * @example
 * await consumeChunks(context, chunks, writer, steps, (error) => onStreamBreak(error, recorder, stop));
 */
export async function consumeChunks(
  context: ExecutionContext,
  chunks: ReadableStream<UIMessageChunk>,
  writer: CheckpointWriter,
  steps: CommittedSteps,
  onStreamBreak: (error: unknown) => Promise<void>,
): Promise<void> {
  const stop = context.stop;
  let finishedSteps = 0;
  const reader = chunks.getReader();
  try {
    for (;;) {
      let read: ReadableStreamReadResult<UIMessageChunk>;
      try {
        read = await reader.read();
      } catch (error) {
        // The stream itself broke: the provider's (a reset connection mid-answer), unless this
        // execution threw the error (a failed write, a `stopWhen` error named internal).
        await onStreamBreak(error);
        return;
      }
      const { done, value: chunk } = read;
      if (done) break;
      if (stop.lost) continue;
      // A heartbeat checkpoint in progress sets the base of this delta (and when none is, no
      // await: a microtask per token is measurable over 100 concurrent runs).
      if (writer.writing) await writer.settled;
      const { baseRevision, seq } = writer.append(chunk);
      context.deps.bus.publish({
        type: 'run-delta',
        runId: context.runId,
        baseRevision,
        seq,
        // Whose delta it is: a previous owner's, published after a takeover, is never shown.
        fencingToken: context.owned.fencingToken,
        chunk,
      });
      const structural = isStructuralChunk(chunk);
      if (structural || writer.batchDue()) {
        await writer.checkpoint('always');
      }
      if (chunk.type === 'finish-step') steps.committed(finishedSteps++);
    }
  } catch (error) {
    // Publishing or assembling a chunk failed: the runtime's own failure.
    if (!stop.isOwn(error)) {
      context.log('error', 'The run stream failed', error);
      stop.fail('internal');
    }
  }
}
