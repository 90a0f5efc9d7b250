import { scriptedModel } from '@runlight/runtime/testing';
import { MockLanguageModelV4 } from 'ai/test';

/** The whole answer the guide's runs give: 1,200 words, one every `GUIDE_TOKEN_MS`. */
export const GUIDE_ANSWER = Array.from({ length: 1_200 }, (_, index) => `w${index} `).join('');
export const GUIDE_TOKEN_MS = 20;

/** The assistant text the prompt already holds: what a taken-over run was given to continue. */
function textSoFar(prompt: readonly { role: string; content: unknown }[]): string {
  return prompt
    .filter((message) => message.role === 'assistant' && Array.isArray(message.content))
    .flatMap((message) => message.content as { type: string; text?: string }[])
    .map((part) => (part.type === 'text' ? (part.text ?? '') : ''))
    .join('');
}

/**
 * A model that continues `answer` from wherever the prompt's assistant text left it — what a
 * real model does when a takeover hands it the checkpointed text — so a run that lost no text
 * and repeated none ends with exactly `answer`. A prompt whose text is not a prefix of the
 * answer (text lost or glued) fails the request.
 */
export function continuationModel(answer = GUIDE_ANSWER, tokenMs = GUIDE_TOKEN_MS) {
  return new MockLanguageModelV4({
    doStream: async (options) => {
      const said = textSoFar(options.prompt);
      if (!answer.startsWith(said)) {
        throw new Error(
          `the prompt's assistant text is not a prefix of the answer: ${said.slice(-40)}`,
        );
      }
      const rest = answer.slice(said.length);
      return scriptedModel([{ firstTokenMs: 20, tokenMs, text: rest }]).doStream(options);
    },
  });
}
