import { contentToText, type Message } from '@ag-ui/core';
import type { ModelMessage } from 'ai';

function parseArguments(text: string): unknown {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    // The model sees what the client sent; a tool call that never parsed stays visible as text.
    return { arguments: text };
  }
}

/**
 * The AI SDK model messages of an AG-UI conversation: user, system and developer text;
 * assistant text and tool calls; tool results (as text). Reasoning and activity messages are
 * the UI's, not the model's, and media parts are dropped (`contentToText`). An app that needs
 * more returns its own `messages` from `start`.
 *
 * @example
 * const messages = toModelMessages(input.messages);
 */
export function toModelMessages(messages: readonly Message[]): ModelMessage[] {
  const toolNames = new Map<string, string>();
  const result: ModelMessage[] = [];
  for (const message of messages) {
    switch (message.role) {
      case 'user':
        result.push({ role: 'user', content: contentToText(message.content) });
        break;
      case 'system':
      case 'developer':
        result.push({ role: 'system', content: message.content });
        break;
      case 'assistant': {
        const text = typeof message.content === 'string' ? message.content : '';
        const calls = (message.toolCalls ?? []).map((call) => {
          toolNames.set(call.id, call.function.name);
          return {
            type: 'tool-call' as const,
            toolCallId: call.id,
            toolName: call.function.name,
            input: parseArguments(call.function.arguments),
          };
        });
        const content = [...(text === '' ? [] : [{ type: 'text' as const, text }]), ...calls];
        if (content.length > 0) result.push({ role: 'assistant', content });
        break;
      }
      case 'tool':
        result.push({
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: message.toolCallId,
              toolName: toolNames.get(message.toolCallId) ?? 'tool',
              output: { type: 'text', value: contentToText(message.content) },
            },
          ],
        });
        break;
      default:
        break;
    }
  }
  return result;
}
