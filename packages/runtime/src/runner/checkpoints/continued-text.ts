import type { UIMessage, UIMessageChunk } from 'ai';

/**
 * A takeover continues the answer in the text part its previous owner was writing (issue 45
 * item 6): a UI that renders parts as blocks must not break one answer mid-sentence at every
 * deploy or crash. The new owner's model call is a new step to the AI SDK — it starts a step
 * and a text part of its own — so the execution continues the stored part instead:
 *
 * - `reopenContinuedText` — the message as the new owner writes it first (its rebase
 *   checkpoint): its last part, when it is text, is `streaming` again, so that every reader
 *   (the runner's assembler, the store's read side, a client's overlay) applies a text delta
 *   whose start it never saw to that part;
 * - `continueTextPart` — the execution's UI chunks with the first step's `start-step` and its
 *   first `text-start` left out, so its first text deltas extend that part; a first step that
 *   does something else first (a tool call, reasoning), or writes nothing, closes the part with
 *   a `text-end` before it.
 *
 * @example
 * const message = reopenContinuedText(checkpointed); // null: the last part is no text
 * if (message) chunks = chunks.pipeThrough(continueTextPart());
 */
export function reopenContinuedText(message: UIMessage): UIMessage | null {
  const last = message.parts.at(-1);
  if (last?.type !== 'text') return null;
  if (last.state === 'streaming') return message;
  return { ...message, parts: [...message.parts.slice(0, -1), { ...last, state: 'streaming' }] };
}

/** The id the closing `text-end` names: no text part of the new owner's stream has it. */
export const CONTINUED_TEXT_ID = 'runlight-continued-text';

export function continueTextPart(): TransformStream<UIMessageChunk, UIMessageChunk> {
  /** `open`: the stored part is still open, no content yet; then `extending` it, or `done`. */
  let state: 'open' | 'extending' | 'done' = 'open';
  let startSkipped = false;
  let continuedId: string | undefined;
  const close = (controller: TransformStreamDefaultController<UIMessageChunk>) => {
    controller.enqueue({ type: 'text-end', id: CONTINUED_TEXT_ID });
    state = 'done';
  };
  return new TransformStream({
    transform(chunk, controller) {
      if (state === 'open') {
        if (chunk.type === 'start') {
          controller.enqueue(chunk);
          return;
        }
        // The first step's start: the stored part is that step's text.
        if (chunk.type === 'start-step' && !startSkipped) {
          startSkipped = true;
          return;
        }
        if (chunk.type === 'text-start') {
          continuedId = chunk.id;
          state = 'extending';
          return;
        }
        close(controller);
      }
      if (state === 'extending' && chunk.type === 'text-end' && chunk.id === continuedId) {
        state = 'done';
      }
      controller.enqueue(chunk);
    },
    flush(controller) {
      if (state === 'open') close(controller);
    },
  });
}
