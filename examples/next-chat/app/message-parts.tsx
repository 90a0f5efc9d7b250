'use client';

import { isToolUIPart, type UIMessage } from 'ai';

type Part = UIMessage['parts'][number];

const STATES: Record<string, string> = {
  'input-streaming': 'preparing',
  'input-available': 'running',
  'approval-requested': 'waiting for your approval',
  'approval-responded': 'answered',
  'output-available': 'done',
  'output-error': 'failed',
  'output-denied': 'denied',
};

/** A message's text, and a card per tool call (with Approve / Deny while it waits for you). */
export function MessageParts({
  message,
  onApproval,
}: {
  message: UIMessage;
  onApproval: (approvalId: string, approved: boolean) => void;
}) {
  return (
    <div className="chat-parts">
      {message.parts.map((part, index) => (
        // Parts only ever append, so their position is a stable key.
        // biome-ignore lint/suspicious/noArrayIndexKey: see above
        <PartView key={index} part={part} onApproval={onApproval} />
      ))}
    </div>
  );
}

function PartView({
  part,
  onApproval,
}: {
  part: Part;
  onApproval: (approvalId: string, approved: boolean) => void;
}) {
  if (part.type === 'text') return <p className="chat-text">{part.text}</p>;
  if (!isToolUIPart(part)) return null;
  const name = part.type === 'dynamic-tool' ? part.toolName : part.type.slice('tool-'.length);
  const approval = 'approval' in part ? part.approval : undefined;
  const waiting = part.state === 'approval-requested' && approval !== undefined;
  return (
    <div className="chat-tool" data-tool={name} data-state={part.state}>
      <div className="chat-tool-head">
        <code>{name}</code>
        <span className="chat-tool-state">{STATES[part.state] ?? part.state}</span>
      </div>
      <pre>{JSON.stringify(part.input)}</pre>
      {part.state === 'output-available' ? <pre>→ {JSON.stringify(part.output)}</pre> : null}
      {waiting ? (
        <div className="chat-approval">
          <span>Allow this tool call?</span>
          <button type="button" onClick={() => onApproval(approval.id, true)}>
            Approve
          </button>
          <button
            type="button"
            className="secondary"
            onClick={() => onApproval(approval.id, false)}
          >
            Deny
          </button>
        </div>
      ) : null}
    </div>
  );
}
