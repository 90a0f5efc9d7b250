/**
 * What `pnpm example:scale-out --check` compares: the text each gateway's watcher assembled
 * (the headless client, as a page shows it), the final assistant message the store holds, and
 * the scripted answer — sentence by sentence, so a duplicated or lost sentence is named.
 */
import { createRunlightClient, selectMessage } from '@runlight/client';
import { isTerminalStatus, type UIMessage } from '@runlight/protocol';

/** The runner's scripted answer: `SENTENCE`, `REPEAT` times. */
export const SENTENCE = 'Executed by the runner, streamed to you by whichever gateway you reached.';
export const REPEAT = 3;
export const SCRIPTED_ANSWER = `${SENTENCE} `.repeat(REPEAT);

/** The text parts of an assistant message, joined (what a chat shows as its answer). */
export function textOf(message: UIMessage | null | undefined): string {
  let text = '';
  for (const part of message?.parts ?? []) if (part.type === 'text') text += part.text;
  return text;
}

/** How often `sentence` occurs in `text` (non-overlapping). */
export function occurrences(text: string, sentence: string): number {
  let count = 0;
  for (let at = text.indexOf(sentence); at >= 0; at = text.indexOf(sentence, at + sentence.length))
    count++;
  return count;
}

export interface FollowedRun {
  readonly status: string;
  readonly text: string;
}

/**
 * Follows `runId` on one gateway as a page does — the client's snapshot, SSE stream, resume and
 * merge rules — until the run has ended and the server closed the stream; its assistant text.
 */
export function followRun(baseUrl: string, runId: string, timeoutMs = 60_000) {
  const store = createRunlightClient({ baseUrl }).run(runId);
  return new Promise<FollowedRun>((resolve, reject) => {
    const finish = (settle: () => void) => {
      clearTimeout(timer);
      unsubscribe();
      settle();
    };
    const timer = setTimeout(
      () => finish(() => reject(new Error(`${baseUrl}: ${runId} did not end in ${timeoutMs} ms`))),
      timeoutMs,
    );
    const unsubscribe = store.subscribe(() => {
      const state = store.getState();
      if (state.connection !== 'closed') return;
      if (state.run === null || !isTerminalStatus(state.run.status)) {
        const why = state.error?.message ?? 'the stream closed before the run ended';
        finish(() => reject(new Error(`${baseUrl}: ${runId}: ${why}`)));
        return;
      }
      const followed = { status: state.run.status, text: textOf(selectMessage(state)) };
      finish(() => resolve(followed));
    });
  });
}

export interface CheckInput {
  /** What the run should say. */
  readonly expected: string;
  /** The sentences to count in every text. */
  readonly sentences: readonly string[];
  /** The final assistant text in the store. */
  readonly stored: string;
  /** Each gateway's assembled text, by a label (its origin). */
  readonly gateways: readonly { readonly label: string; readonly text: string }[];
}

function counted(text: string, sentences: readonly string[]): string {
  return sentences.map((sentence) => `"${sentence}" ×${occurrences(text, sentence)}`).join(', ');
}

function differs(label: string, text: string, reference: string, input: CheckInput): string {
  let at = 0;
  while (at < text.length && text[at] === reference[at]) at++;
  return (
    `${label}: ${counted(text, input.sentences)} (expected ${counted(reference, input.sentences)}); ` +
    `${text.length} chars vs ${reference.length}, first difference at char ${at}`
  );
}

/**
 * Every mismatch between the texts (empty: all agree): the store against the scripted answer,
 * each gateway against the store and against the scripted answer, with each sentence counted.
 * Two gateways that agree with each other but duplicate or lose text both fail.
 */
export function findMismatches(input: CheckInput): string[] {
  const problems: string[] = [];
  if (input.gateways.length === 0) problems.push('no gateway was followed');
  if (input.stored !== input.expected)
    problems.push(differs('store vs scripted answer', input.stored, input.expected, input));
  for (const { label, text } of input.gateways) {
    if (text !== input.stored)
      problems.push(differs(`${label} vs store`, text, input.stored, input));
    if (text !== input.expected)
      problems.push(differs(`${label} vs scripted answer`, text, input.expected, input));
  }
  return problems;
}
