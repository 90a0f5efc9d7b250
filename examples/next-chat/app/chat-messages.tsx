'use client';

import { useRunActivity } from '@runlight/react';
import { isToolUIPart, type UIMessage } from 'ai';
import { MessageParts } from './message-parts';

type OnApproval = (approvalId: string, approved: boolean) => void;

/** The run that answered a message (`createRunlightChatTransport` sets `metadata.runId`). */
function runIdOf(message: UIMessage): string | null {
  const runId = (message.metadata as { runId?: unknown } | undefined)?.runId;
  return typeof runId === 'string' ? runId : null;
}

/** Whether a message shows anything: text, or a tool card. */
function showsSomething(message: UIMessage): boolean {
  return message.parts.some(
    (part) => (part.type === 'text' && part.text !== '') || isToolUIPart(part),
  );
}

/**
 * The conversation. An answer the user stopped says so beside it ("Stopped": its run ended
 * `cancelled`, on the record, so a reload says it too); an answer with nothing in it yet is no
 * empty bubble; and a send stopped before its run wrote anything — the chat's latest run
 * cancelled with no message of its own — reads "Stopped before the answer began".
 */
export function ChatMessages({
  messages,
  latestRunId,
  onApproval,
}: {
  messages: UIMessage[];
  /** The chat's latest run (`transport.getRunId`), `null` before the first send. */
  latestRunId: string | null;
  onApproval: OnApproval;
}) {
  const answered =
    latestRunId !== null && messages.some((message) => runIdOf(message) === latestRunId);
  return (
    <ol className="chat-messages">
      {messages.length === 0 ? (
        <li className="chat-empty">Ask something, e.g. “clean up the build folder”.</li>
      ) : null}
      {messages.map((message) => {
        const runId = message.role === 'assistant' ? runIdOf(message) : null;
        return runId === null ? (
          <ChatMessage key={message.id} message={message} stopped={false} onApproval={onApproval} />
        ) : (
          <RunAnswer key={message.id} runId={runId} message={message} onApproval={onApproval} />
        );
      })}
      {latestRunId !== null && !answered ? <StoppedBeforeAnswer runId={latestRunId} /> : null}
    </ol>
  );
}

/** An assistant message with its run: stopped when the run ended cancelled. */
function RunAnswer({
  runId,
  message,
  onApproval,
}: {
  runId: string;
  message: UIMessage;
  onApproval: OnApproval;
}) {
  const stopped = useRunActivity(runId).kind === 'cancelled';
  if (!showsSomething(message)) return stopped ? <StoppedMark /> : null;
  return <ChatMessage message={message} stopped={stopped} onApproval={onApproval} />;
}

/** The latest run, when it has no message: a mark only once it was cancelled. */
function StoppedBeforeAnswer({ runId }: { runId: string }) {
  return useRunActivity(runId).kind === 'cancelled' ? <StoppedMark /> : null;
}

function StoppedMark() {
  return (
    <li className="chat-stopped" data-stopped="">
      Stopped before the answer began
    </li>
  );
}

function ChatMessage({
  message,
  stopped,
  onApproval,
}: {
  message: UIMessage;
  stopped: boolean;
  onApproval: OnApproval;
}) {
  if (message.role === 'assistant' && !showsSomething(message)) return null;
  return (
    <li className="chat-message" data-role={message.role} data-stopped={stopped ? '' : undefined}>
      <span className="chat-role">{message.role === 'user' ? 'You' : 'Assistant'}</span>
      <MessageParts message={message} onApproval={onApproval} />
      {stopped ? <span className="chat-stopped-mark">Stopped</span> : null}
    </li>
  );
}
