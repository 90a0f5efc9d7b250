import {
  type ActivityMessage,
  type AssistantMessage,
  type BaseEvent,
  EventType,
  type Message,
  type ToolMessage,
} from '@ag-ui/core';
import { OPERATION_ACTIVITY_TYPE } from './operation-activity';
import type { RunView } from './run-view';
import { activityMessageIdOf, eventsBetween } from './view-events';

/** The first tool call with this id, as the reducer finds it. */
function callOf(messages: readonly Message[], toolCallId: string) {
  for (const message of messages) {
    const call = (message as AssistantMessage).toolCalls?.find(
      (toolCall) => toolCall.id === toolCallId,
    );
    if (call) return call;
  }
  return undefined;
}

/**
 * Applies the message events this adapter sends exactly as `@ag-ui/client`'s reducer does (a
 * text or reasoning message starts empty and grows; a tool call joins the assistant message
 * its `parentMessageId` names, created bare when missing; a result is inserted after the message
 * that made the call and the results already there). The snapshot a reconnecting client gets
 * is therefore the very list a client that watched from the start holds — the property test
 * (`reconnect.property.test.ts`) checks that against the real client.
 */
function apply(messages: Message[], event: BaseEvent): void {
  const find = (id: string) => messages.find((message) => message.id === id);
  switch (event.type) {
    case EventType.TEXT_MESSAGE_START:
    case EventType.REASONING_MESSAGE_START: {
      const id = event.messageId as string;
      if (!find(id)) messages.push({ id, role: event.role as 'assistant', content: '' });
      return;
    }
    case EventType.TEXT_MESSAGE_CONTENT:
    case EventType.REASONING_MESSAGE_CONTENT: {
      const message = find(event.messageId as string) as { content: string } | undefined;
      if (message) message.content += event.delta as string;
      return;
    }
    case EventType.TOOL_CALL_START: {
      // Idempotent by tool call id, as the reducer is: a start of a call already held adds
      // nothing (its arguments go on appending to that call).
      if (callOf(messages, event.toolCallId as string)) return;
      const parentId = event.parentMessageId as string;
      let parent = find(parentId) as AssistantMessage | undefined;
      if (!parent) {
        parent = { id: parentId, role: 'assistant', toolCalls: [] };
        messages.push(parent);
      }
      parent.toolCalls ??= [];
      parent.toolCalls.push({
        id: event.toolCallId as string,
        type: 'function',
        function: { name: event.toolCallName as string, arguments: '' },
      });
      return;
    }
    case EventType.TOOL_CALL_ARGS: {
      const call = callOf(messages, event.toolCallId as string);
      if (call) call.function.arguments += event.delta as string;
      return;
    }
    case EventType.TOOL_CALL_RESULT: {
      const result: ToolMessage = {
        id: event.messageId as string,
        toolCallId: event.toolCallId as string,
        role: 'tool',
        content: event.content as string,
      };
      const owner = messages.findIndex(
        (message) =>
          message.role === 'assistant' &&
          message.toolCalls?.some((toolCall) => toolCall.id === event.toolCallId),
      );
      if (owner === -1) {
        messages.push(result);
        return;
      }
      let at = owner + 1;
      while (at < messages.length && messages[at]!.role === 'tool') at++;
      messages.splice(at, 0, result);
      return;
    }
    default:
      return;
  }
}

/** The run's `runlight.operation` activity message as it stands in `view`. */
export function activityMessageOf(view: RunView): ActivityMessage {
  return {
    id: activityMessageIdOf(view.runId),
    role: 'activity',
    activityType: OPERATION_ACTIVITY_TYPE,
    content: { ...view.activity },
  };
}

/**
 * The `MESSAGES_SNAPSHOT` of a run: the conversation it was started with, its activity message,
 * then its output as AG-UI messages (text, reasoning, tool calls and results).
 *
 * @example
 * const messages = snapshotMessagesOf(input, view);
 */
export function snapshotMessagesOf(input: readonly Message[], view: RunView): Message[] {
  const output: Message[] = [];
  for (const event of eventsBetween({ ...view, parts: [] }, view)) apply(output, event);
  return [...input, activityMessageOf(view), ...output];
}
