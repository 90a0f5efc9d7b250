import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { scriptedModel } from '@runlight/runtime/testing';
import { jsonSchema, type LanguageModel, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';

/** The chat's tools: one that just runs, one that waits for the user's approval. */
export const chatTools = {
  listFiles: tool({
    description: 'Lists the files under a folder',
    inputSchema: jsonSchema<{ path: string }>({
      type: 'object',
      properties: { path: { type: 'string' } },
      required: ['path'],
    }),
    execute: async ({ path }) => ({ path, files: 42 }),
  }),
  deleteFiles: tool({
    description: 'Deletes every file under a folder (asks the user first)',
    inputSchema: jsonSchema<{ path: string }>({
      type: 'object',
      properties: { path: { type: 'string' } },
      required: ['path'],
    }),
    execute: async ({ path }) => ({ path, deleted: 42 }),
  }),
};

/** `deleteFiles` runs only once the user approved it in the chat. */
export const chatToolApproval = { deleteFiles: 'user-approval' } as const;

/**
 * The real provider when configured (`RUNLIGHT_OPENAI_BASE_URL` for any OpenAI-compatible
 * server, `OPENAI_API_KEY`, `RUNLIGHT_OPENAI_MODEL`), else a scripted model: no key needed.
 */
export function chatModel(prompt: string): LanguageModel {
  const baseURL = process.env.RUNLIGHT_OPENAI_BASE_URL || undefined;
  const apiKey = process.env.OPENAI_API_KEY || undefined;
  if (baseURL || apiKey) {
    const provider = createOpenAICompatible({
      name: 'openai-compatible',
      baseURL: baseURL ?? 'https://api.openai.com/v1',
      ...(apiKey ? { apiKey } : {}),
    });
    return provider.chatModel(process.env.RUNLIGHT_OPENAI_MODEL || 'gpt-4o-mini');
  }
  return scriptedChat(prompt);
}

/**
 * "Count …" streams one long answer (about twenty seconds: time for a reload and Stop, even on
 * a loaded machine). Anything else makes three model requests: look at build/ (a tool that
 * just runs), ask to delete it (a tool that needs approval), then answer. The answer after
 * the approval depends on the user's choice.
 */
function scriptedChat(prompt: string): LanguageModel {
  const said = prompt.slice(0, 80);
  // "Count …": one long answer and no tools, to try reload and Stop mid-answer with.
  if (/^count\b/i.test(prompt.trim())) {
    const numbers = Array.from({ length: 150 }, (_, index) => `${index + 1}.`).join(' ');
    return scriptedModel([{ firstTokenMs: 300, tokenMs: 130, text: `Counting: ${numbers}` }]);
  }
  const approved = scriptedModel([
    {
      firstTokenMs: 300,
      tokenMs: 40,
      text: `Done: the 42 files under build/ are deleted. (You said "${said}"; this answer is scripted, streamed word by word as a durable Runlight run — reload mid-answer and it carries on.)`,
    },
  ]);
  const denied = scriptedModel([
    { firstTokenMs: 300, tokenMs: 40, text: 'Understood: I left build/ untouched.' },
  ]);
  const first = scriptedModel([
    {
      firstTokenMs: 600,
      tokenMs: 40,
      text: 'Let me look at the build folder first.',
      toolCalls: [{ toolName: 'listFiles', input: { path: 'build/' } }],
    },
    {
      firstTokenMs: 300,
      tokenMs: 40,
      text: 'It holds 42 files. I would like to delete them.',
      toolCalls: [{ toolName: 'deleteFiles', input: { path: 'build/' } }],
    },
  ]);
  let calls = 0;
  return new MockLanguageModelV4({
    provider: 'scripted',
    modelId: 'scripted-chat',
    doStream: (options) => {
      if (calls++ < 2) return first.doStream(options);
      const last = JSON.stringify(options.prompt.at(-1) ?? {});
      return (last.includes('execution-denied') ? denied : approved).doStream(options);
    },
  });
}
