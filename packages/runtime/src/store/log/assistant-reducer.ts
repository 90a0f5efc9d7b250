import { parseAssistantAppendEvent, type UIMessage, type UIMessageChunk } from '@runlight/protocol';
import { InvalidTransitionError } from '../../errors/invalid-transition-error';
import { checkGuard, checkRunning, decided, headOf, type OwnerGuard } from './reducer-rules';
import type { Mutation, StoredRun } from './stored-run';

/** The reducers of the run's assistant message: consolidating checkpoints and appends. */

function checkAssistantWrite(record: StoredRun, guard: OwnerGuard, messageId: string): void {
  checkGuard(record, guard);
  checkRunning(record);
  const current = record.assistant?.messageId;
  if (current !== undefined && current !== messageId) {
    throw new InvalidTransitionError(
      record.run.id,
      'message-id-changed',
      `the run's assistant message is ${current}, not ${messageId}`,
    );
  }
}

/**
 * Consolidates this run's assistant message (never the whole conversation): the whole message
 * at the new revision, in its `assistant-checkpoint` event. The record keeps only a pointer.
 */
export function reduceSaveAssistantCheckpoint(
  record: StoredRun,
  guard: OwnerGuard,
  message: UIMessage,
  now: Date,
): Mutation {
  const runId = record.run.id;
  if (message.role !== 'assistant') {
    throw new InvalidTransitionError(
      runId,
      'message-not-assistant',
      'a checkpoint holds the assistant message',
    );
  }
  checkAssistantWrite(record, guard, message.id);
  const head = headOf(record, now);
  return decided(record, {
    type: 'assistant-checkpoint',
    ...head,
    checkpoint: { message, revision: head.revision },
  });
}

/** What an append names: the message it extends, the write it builds on and its chunks. */
export interface AssistantAppend {
  messageId: string;
  /** The revision of the assistant write it extends (0: none); must be the record's last one. */
  baseRevision: number;
  chunks: readonly UIMessageChunk[];
}

/**
 * Appends UI message chunks to this run's assistant message: what a checkpoint batch added
 * since the previous assistant write, which it must name (`baseRevision`), so an append never
 * lands on a message state it was not cut from. The event is validated (at least one chunk,
 * every chunk a `UIMessageChunk`); the record only moves its pointer.
 */
export function reduceAppendAssistant(
  record: StoredRun,
  guard: OwnerGuard,
  append: AssistantAppend,
  now: Date,
): Mutation {
  checkAssistantWrite(record, guard, append.messageId);
  const runId = record.run.id;
  const base = record.assistant?.revision ?? 0;
  if (append.baseRevision !== base) {
    throw new InvalidTransitionError(
      runId,
      'append-base-changed',
      `the append extends revision ${append.baseRevision}, the last assistant write is ${base}`,
    );
  }
  const event = parseAssistantAppendEvent({
    type: 'assistant-append',
    ...headOf(record, now),
    messageId: append.messageId,
    baseRevision: base,
    chunks: [...append.chunks],
  });
  return decided(record, event);
}
