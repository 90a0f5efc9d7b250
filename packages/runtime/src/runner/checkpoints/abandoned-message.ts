import type { UIMessage } from 'ai';

/**
 * The message a dead owner left behind, as the new owner continues it: text and reasoning
 * parts it was still streaming are closed (`state: 'done'`). The dead owner's operation is
 * recorded failed, so nothing will ever finish those parts; left `streaming`, a UI would show
 * them as still being written. Their text is kept as it was checkpointed.
 *
 * @example
 * closeAbandonedParts({ id: 'm', role: 'assistant', parts: [{ type: 'text', text: 'Hal', state: 'streaming' }] });
 * // → parts: [{ type: 'text', text: 'Hal', state: 'done' }]
 */
export function closeAbandonedParts(message: UIMessage): UIMessage {
  let changed = false;
  const parts = message.parts.map((part) => {
    if ((part.type === 'text' || part.type === 'reasoning') && part.state === 'streaming') {
      changed = true;
      return { ...part, state: 'done' as const };
    }
    return part;
  });
  return changed ? { ...message, parts } : message;
}
