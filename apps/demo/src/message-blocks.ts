import type { UIMessage } from '@runlight/protocol';

type Part = UIMessage['parts'][number];

/** What the assistant message shows, in order. */
export type MessageBlock =
  | { type: 'step'; key: string; step: number }
  /**
   * Text; `segments` are the text parts it joins. More than one when a worker took the run over
   * mid-step and continued the checkpointed text: the answer reads on in the same paragraph.
   */
  | { type: 'text'; key: string; segments: string[] }
  | { type: 'part'; key: string; part: Part };

const isToolPart = (part: Part) => part.type.startsWith('tool-') || part.type === 'dynamic-tool';

/**
 * The blocks of a message: a divider per step, text, and every other part as it is. A step of
 * the AI SDK ends with a tool call unless it is the last one, so a `step-start` after a step
 * without a tool part does not begin a new step: a recovering worker continued the interrupted
 * one from its checkpoint. It gets no divider (no "step 1" in mid-sentence) and its first text
 * joins the text before it. Steps are still counted, so the dividers keep the timeline's numbers.
 *
 * @example
 * messageBlocks([{ type: 'step-start' }, { type: 'text', text: 'A wor' }, { type: 'step-start' }, { type: 'text', text: 'ker' }]);
 * // [{ type: 'step', step: 0 }, { type: 'text', segments: ['A wor', 'ker'] }]
 */
export function messageBlocks(parts: readonly Part[]): MessageBlock[] {
  const blocks: MessageBlock[] = [];
  let steps = 0;
  let stepHasTool = false;
  let continued = false;
  parts.forEach((part, index) => {
    const key = `${index}:${part.type}`;
    if (part.type === 'step-start') {
      continued = steps > 0 && !stepHasTool;
      if (!continued) blocks.push({ type: 'step', key, step: steps });
      steps += 1;
      stepHasTool = false;
      return;
    }
    if (isToolPart(part)) stepHasTool = true;
    const last = blocks.at(-1);
    if (part.type === 'text') {
      if (continued && last?.type === 'text') last.segments.push(part.text);
      else blocks.push({ type: 'text', key, segments: [part.text] });
    } else {
      blocks.push({ type: 'part', key, part });
    }
    continued = false;
  });
  return blocks;
}

/**
 * How many characters of `shown` (text the page showed) are not in `now`: 0 while the text only
 * grows. Text streamed live but never stored is gone when another worker continues the run
 * from its last checkpoint; the page says so instead of letting it vanish.
 *
 * @example
 * droppedCharacters('Durable run facts mean', 'Durable run'); // 11
 */
export function droppedCharacters(shown: string, now: string): number {
  if (now.startsWith(shown)) return 0;
  let common = 0;
  while (common < shown.length && shown[common] === now[common]) common++;
  return shown.length - common;
}

/** The text of a message's text parts, joined. */
export function messageText(message: UIMessage | null): string {
  return (message?.parts ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('');
}
