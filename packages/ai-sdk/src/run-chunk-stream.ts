import { type RunState, type RunStore, selectActivity, selectMessage } from '@runlight/client';
import { isTerminalStatus, pendingApprovals } from '@runlight/protocol';
import type { UIMessageChunk } from 'ai';
import { type ChunkCursor, closeParts, messageChunks } from './message-chunks';

export interface RunChunkStreamOptions {
  store: RunStore;
  /** What the chat already holds of the run's message (empty for a new or replayed one). */
  cursor: ChunkCursor;
  /** Set on the `start` chunk as the message's metadata (e.g. `{ runId }`). */
  metadata?: unknown;
  /**
   * Approval ids the chat just answered: while the run's checkpoint still asks for them (the
   * resumed execution has not written yet) the stream does not end as "awaiting approval".
   */
  answered?: ReadonlySet<string>;
  /** Aborts the stream (the chat's stop); the stream closes without more chunks. */
  signal?: AbortSignal;
}

/** Why the stream of a run ends, from its merged state; `null` while it goes on. */
function endOf(state: RunState, answered: ReadonlySet<string>): 'done' | 'approval' | null {
  const { run } = state;
  if (run === null) return null;
  if (isTerminalStatus(run.status)) return state.phase === 'synced' ? 'done' : null;
  if (selectActivity(state).kind !== 'awaiting-approval') return null;
  const pending = pendingApprovals(state.assistant?.message);
  return pending.some((request) => !answered.has(request.approvalId)) ? 'approval' : null;
}

/**
 * The chat's view of one run: the `UIMessageChunk`s of its assistant message as the
 * `@runlight/client` store merges it — the checkpointed message first, then live deltas,
 * resumed by the store's own cursor after any drop (so no text twice) — ending when the run
 * ends (`finish`; `error` with the failure code for a failed run; `abort` for a cancelled one)
 * or stops to wait for the user's approvals (`finish`, as the AI SDK's own stream does).
 */
export function runChunkStream(options: RunChunkStreamOptions): ReadableStream<UIMessageChunk> {
  const { store, signal } = options;
  const answered = options.answered ?? new Set<string>();
  let cursor = options.cursor;
  let unsubscribe: (() => void) | null = null;
  let finished = false;

  const stop = () => {
    finished = true;
    unsubscribe?.();
    unsubscribe = null;
    signal?.removeEventListener('abort', onAbort);
  };
  let onAbort = () => {};

  return new ReadableStream<UIMessageChunk>({
    start(controller) {
      const emit = (chunks: UIMessageChunk[]) => {
        for (const chunk of chunks) controller.enqueue(chunk);
      };
      const update = () => {
        if (finished) return;
        const state = store.getState();
        const message = selectMessage(state);
        if (message !== null) {
          const next = messageChunks(cursor, message, options.metadata);
          cursor = next.cursor;
          emit(next.chunks);
        }
        const end = endOf(state, answered);
        if (end === null) return;
        const closed = closeParts(cursor);
        cursor = closed.cursor;
        emit(closed.chunks);
        const status = state.run?.status;
        if (!cursor.started) emit([{ type: 'start' }]);
        if (status === 'failed') {
          emit([
            {
              type: 'error',
              errorText: `The run failed: ${state.run?.failure?.code ?? 'unknown'}`,
            },
          ]);
        } else if (status === 'cancelled') {
          emit([{ type: 'abort', reason: 'cancelled' }]);
        } else {
          emit([{ type: 'finish', finishReason: end === 'approval' ? 'tool-calls' : 'stop' }]);
        }
        stop();
        controller.close();
      };
      onAbort = () => {
        if (finished) return;
        stop();
        controller.close();
      };
      if (signal?.aborted) {
        onAbort();
        return;
      }
      signal?.addEventListener('abort', onAbort);
      unsubscribe = store.subscribe(update);
      update();
    },
    cancel() {
      stop();
    },
  });
}
