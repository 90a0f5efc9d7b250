import {
  ComposerPrimitive,
  MessagePrimitive,
  type TextMessagePartProps,
  ThreadPrimitive,
  type ToolCallMessagePartProps,
} from '@assistant-ui/react';
import type { ReactNode } from 'react';

/** A text part of an answer (one AG-UI text message). */
function Text({ text }: TextMessagePartProps) {
  return (
    <p className="text" data-testid="assistant-text">
      {text}
    </p>
  );
}

/** A tool call: `→ pay({"amount":5})`, then `← {"paid":5}` once it has a result. */
function ToolCall({ toolName, argsText, result }: ToolCallMessagePartProps) {
  return (
    <div className="tool" data-testid="tool-call">
      → {toolName}({argsText})
      {result === undefined ? null : (
        <span data-testid="tool-result"> ← {JSON.stringify(result)}</span>
      )}
    </div>
  );
}

const UserMessage = () => (
  <MessagePrimitive.Root className="message user" data-testid="user-message">
    <MessagePrimitive.Parts />
  </MessagePrimitive.Root>
);

const AssistantMessage = () => (
  <MessagePrimitive.Root className="message assistant" data-testid="assistant-message">
    <MessagePrimitive.Parts components={{ Text, tools: { Fallback: ToolCall } }} />
  </MessagePrimitive.Root>
);

/** assistant-ui's own thread and composer, unchanged: the messages come from its runtime. */
export function Thread({ children }: { children?: ReactNode }) {
  return (
    <ThreadPrimitive.Root>
      <ThreadPrimitive.Viewport>
        <ThreadPrimitive.Messages components={{ UserMessage, AssistantMessage }} />
      </ThreadPrimitive.Viewport>
      {children}
      <ComposerPrimitive.Root className="composer">
        <ComposerPrimitive.Input data-testid="input" placeholder="Ask…" />
        <ComposerPrimitive.Send data-testid="send">Send</ComposerPrimitive.Send>
      </ComposerPrimitive.Root>
    </ThreadPrimitive.Root>
  );
}
