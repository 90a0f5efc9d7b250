'use client';

/**
 * Recipes: Runlight's status in AI Elements' `Conversation` / `Message` and in assistant-ui's
 * thread. In both, the message list stays the library's own; the status components sit inside
 * an assistant message and read the run by its id (`metadata.runId` from
 * `@runlight/ai-sdk`'s transport) — the chat library renders text, Runlight says what the run
 * is doing. Typechecked by `pnpm typecheck` (AI Elements' props: `ai-elements.d.ts`).
 */
import { MessagePrimitive, ThreadPrimitive, useAuiState } from '@assistant-ui/react';
import { Conversation, ConversationContent } from '@/components/ai-elements/conversation';
import { Message, MessageContent } from '@/components/ai-elements/message';
import { ApprovalCard } from '@/components/runlight/approval-card';
import { RunStatusPill } from '@/components/runlight/run-status-pill';
import { StalledBanner } from '@/components/runlight/stalled-banner';
import { type RunMessage, runIdOf } from './ai-sdk-use-chat';

/** AI Elements: the status under each assistant message of a run. */
export function ElementsConversation({ messages }: { messages: RunMessage[] }) {
  return (
    <Conversation>
      <ConversationContent>
        {messages.map((message) => {
          const runId = runIdOf(message);
          return (
            <Message key={message.id} from={message.role}>
              <MessageContent>
                {message.parts.map((part, index) =>
                  part.type === 'text' ? (
                    // biome-ignore lint/suspicious/noArrayIndexKey: parts have no id; their order is fixed
                    <p key={index}>{part.text}</p>
                  ) : null,
                )}
                {runId === undefined ? null : (
                  <>
                    <RunStatusPill runId={runId} />
                    <ApprovalCard runId={runId} />
                  </>
                )}
              </MessageContent>
            </Message>
          );
        })}
      </ConversationContent>
    </Conversation>
  );
}

/**
 * assistant-ui: inside `MessagePrimitive.Root`, read the run id from the message's custom
 * metadata (where the AI SDK runtime adapter keeps `UIMessage.metadata`).
 */
function AssistantRunStatus() {
  const runId = useAuiState(({ message }) => {
    const custom = message.metadata.custom as { runId?: unknown };
    return typeof custom.runId === 'string' ? custom.runId : undefined;
  });
  if (runId === undefined) return null;
  return (
    <>
      <RunStatusPill runId={runId} />
      <StalledBanner runId={runId} recovers />
      <ApprovalCard runId={runId} />
    </>
  );
}

function AssistantMessage() {
  return (
    <MessagePrimitive.Root className="flex flex-col gap-2">
      <MessagePrimitive.Parts />
      <AssistantRunStatus />
    </MessagePrimitive.Root>
  );
}

function UserMessage() {
  return (
    <MessagePrimitive.Root>
      <MessagePrimitive.Parts />
    </MessagePrimitive.Root>
  );
}

export function AssistantUiThread() {
  return (
    <ThreadPrimitive.Root>
      <ThreadPrimitive.Viewport>
        <ThreadPrimitive.Messages components={{ UserMessage, AssistantMessage }} />
      </ThreadPrimitive.Viewport>
    </ThreadPrimitive.Root>
  );
}
