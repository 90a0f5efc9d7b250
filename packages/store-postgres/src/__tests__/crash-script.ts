import { jsonSchema, tool } from 'ai';

/** The tool both instances of the crash test use; its results must survive the crash. */
export const crashTools = {
  weather: tool({
    inputSchema: jsonSchema<{ city: string }>({
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
    }),
    execute: async ({ city }) => ({ city, sky: city === 'Oslo' ? 'snow' : 'sunny' }),
  }),
};

/** Long enough (about 8 s at 40 ms a word) for the parent to kill the child mid-stream. */
export const longAnswer = Array.from({ length: 200 }, (_, index) => `word${index}`).join(' ');
