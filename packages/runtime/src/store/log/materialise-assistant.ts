import type { AssistantCheckpoint, DurableRunEvent, UIMessage } from '@runlight/protocol';
import { assembleMessage } from '../../assembly/assistant-assembler';
import { compactChunks } from '../../assembly/compact-chunks';
import { StoreRecordError } from '../../errors/store-record-error';
import type { AssistantPointer } from './stored-run';

/**
 * The assistant message a pointer names, from the durable events after its consolidation: the
 * `assistant-checkpoint` at `consolidatedRevision` (or an empty message when 0) plus every
 * `assistant-append` after it up to `revision`, each extending exactly the write before it,
 * assembled with the AI SDK's `readUIMessageStream`. The appends' chunks are compacted first
 * (one delta per part run), so the SDK sees a handful of chunks however many appends there are.
 *
 * `events` are the run's durable events with `revision ≥ consolidatedRevision` (later ones are
 * ignored). A broken chain is a corrupt store: `StoreRecordError`.
 *
 * @example
 * const events = await store.readEvents(runId, { afterRevision: pointer.consolidatedRevision - 1 });
 * const { message } = await materialiseAssistant(runId, pointer, events);
 */
export async function materialiseAssistant(
  runId: string,
  pointer: AssistantPointer,
  events: readonly DurableRunEvent[],
): Promise<AssistantCheckpoint> {
  const corrupt = (path: string, message: string) =>
    new StoreRecordError(runId, 'assistant message', [{ path, message }]);
  let base: UIMessage = { id: pointer.messageId, role: 'assistant', parts: [] };
  let last = 0;
  if (pointer.consolidatedRevision > 0) {
    const checkpoint = events.find((event) => event.revision === pointer.consolidatedRevision);
    if (checkpoint?.type !== 'assistant-checkpoint') {
      throw corrupt(
        'assistant.consolidatedRevision',
        `no assistant-checkpoint event at revision ${pointer.consolidatedRevision}`,
      );
    }
    base = checkpoint.checkpoint.message;
    last = checkpoint.revision;
  }
  const chunks = [];
  for (const event of events) {
    if (event.type !== 'assistant-append') continue;
    if (event.revision <= pointer.consolidatedRevision || event.revision > pointer.revision) {
      continue;
    }
    if (event.baseRevision !== last) {
      throw corrupt(
        'assistant.revision',
        `the append at revision ${event.revision} extends ${event.baseRevision}, not ${last}`,
      );
    }
    chunks.push(...event.chunks);
    last = event.revision;
  }
  if (last !== pointer.revision) {
    throw corrupt('assistant.revision', `no assistant write at revision ${pointer.revision}`);
  }
  const message = chunks.length === 0 ? base : await assembleMessage(base, compactChunks(chunks));
  return { message, revision: pointer.revision };
}
