'use client';

/**
 * Recipe: Runlight's status inside AI SDK UI's message rendering. `useChat` with
 * `createRunlightChatTransport` renders the run's assistant message; the status components
 * read the SAME run by the id the transport puts on each assistant message
 * (`metadata.runId`) — one source of truth, the run's durable facts. Typechecked by
 * `pnpm typecheck` (registry/tsconfig.json).
 */
import { useChat } from '@ai-sdk/react';
import type { UIMessage } from 'ai';
import { ApprovalCard } from '@/components/runlight/approval-card';
import { BetweenSteps } from '@/components/runlight/between-steps';
import { RetryCountdown } from '@/components/runlight/retry-countdown';
import { RunStatusPill } from '@/components/runlight/run-status-pill';

/** What `@runlight/ai-sdk` puts on an assistant message. */
export type RunMessage = UIMessage<{ runId?: string }>;

/** The run a message belongs to, if it is an assistant message of a Runlight run. */
export const runIdOf = (message: RunMessage): string | undefined =>
  message.role === 'assistant' ? message.metadata?.runId : undefined;

export function MessageList({ messages }: { messages: RunMessage[] }) {
  return (
    <ol className="flex flex-col gap-4">
      {messages.map((message) => {
        const runId = runIdOf(message);
        return (
          <li key={message.id} className="flex flex-col gap-2">
            {message.parts.map((part, index) =>
              part.type === 'text' ? (
                // biome-ignore lint/suspicious/noArrayIndexKey: parts have no id; their order is fixed
                <p key={index}>{part.text}</p>
              ) : null,
            )}
            {runId === undefined ? null : (
              <>
                <RunStatusPill runId={runId} />
                <BetweenSteps runId={runId} />
                <RetryCountdown runId={runId} />
                {/* Answers go through the run's approval route (useRunControls). */}
                <ApprovalCard runId={runId} />
              </>
            )}
          </li>
        );
      })}
    </ol>
  );
}

/** The chat itself: `transport` is `createRunlightChatTransport({ baseUrl, start })`. */
export function Chat({ transport }: { transport: Parameters<typeof useChat<RunMessage>>[0] }) {
  const { messages } = useChat<RunMessage>(transport);
  return <MessageList messages={messages} />;
}
