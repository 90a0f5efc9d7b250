import type { UIMessage } from 'ai';

/** What a tool call the dead owner never ran reads as (its approval never came, or its input never finished). */
export const ABANDONED_TOOL_CALL_TEXT = 'Not run: the worker stopped before this tool call ran';
/** What a tool call the dead owner was running reads as: whether it took effect is unknown. */
export const INTERRUPTED_TOOL_CALL_TEXT =
  'Interrupted: the worker stopped while this tool ran; its effect is unknown';

/**
 * The message a dead owner left behind, as the new owner continues it:
 * - text and reasoning parts it was still streaming are closed (`state: 'done'`), their text
 *   kept as it was checkpointed — left `streaming`, a UI would show them still being written;
 * - tool calls it never finished end `output-error`, so no UI shows an approval card nobody can
 *   answer any more, or a tool working forever: one still streaming its input or waiting for
 *   an approval never ran (`ABANDONED_TOOL_CALL_TEXT`); one whose input was complete may have
 *   run (`INTERRUPTED_TOOL_CALL_TEXT`; see the README on idempotency). The model sees them as
 *   failed calls and may make them again.
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
    if (!('toolCallId' in part) || !('state' in part)) return part;
    const state = part.state as string;
    if (
      state !== 'input-streaming' &&
      state !== 'input-available' &&
      state !== 'approval-requested'
    ) {
      return part;
    }
    changed = true;
    const { approval: _approval, ...rest } = part as typeof part & { approval?: unknown };
    return {
      ...rest,
      input: 'input' in part ? part.input : undefined,
      state: 'output-error',
      errorText:
        state === 'input-available' ? INTERRUPTED_TOOL_CALL_TEXT : ABANDONED_TOOL_CALL_TEXT,
    } as unknown as typeof part;
  });
  return changed ? { ...message, parts } : message;
}
