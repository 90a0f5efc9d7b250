import { selectMessage } from '@runlight/client';
import type { UIMessage } from '@runlight/protocol';
import { useRun } from '@runlight/react';
import { useState } from 'react';
import { demoApi } from './demo-api-client';

type Part = UIMessage['parts'][number];
interface ToolPart {
  type: string;
  toolCallId: string;
  state: string;
  input?: unknown;
  output?: unknown;
  errorText?: string;
  approval?: { id: string; approved?: boolean; reason?: string };
}

const isToolPart = (part: Part): part is Part & ToolPart =>
  part.type.startsWith('tool-') || part.type === 'dynamic-tool';

const json = (value: unknown) => JSON.stringify(value, null, 1) ?? '';

/** The assistant message so far: the durable checkpoint with the live deltas applied. */
export function AssistantMessage({ runId }: { runId: string }) {
  const message = useRun(runId, { select: selectMessage });
  if (message === null || message.parts.length === 0) {
    return <p className="hint">Nothing written yet.</p>;
  }
  let step = 0;
  return (
    <div className="message" data-testid="assistant-message">
      {message.parts.map((part, index) => {
        const key = `${index}:${part.type}`;
        if (part.type === 'step-start') {
          step += 1;
          return (
            <div key={key} className="step-divider">
              step {step - 1}
            </div>
          );
        }
        if (part.type === 'text') {
          return (
            <p key={key} className="text-part" data-testid="message-text">
              {part.text}
            </p>
          );
        }
        if (part.type === 'reasoning') {
          return (
            <p key={key} className="reasoning-part" data-testid="message-reasoning">
              {part.text}
            </p>
          );
        }
        if (isToolPart(part)) return <ToolCall key={key} runId={runId} part={part} />;
        return (
          <p key={key} className="hint">
            {part.type}
          </p>
        );
      })}
    </div>
  );
}

function ToolCall({ runId, part }: { runId: string; part: ToolPart }) {
  const [sent, setSent] = useState<'approve' | 'deny' | null>(null);
  const [error, setError] = useState<string | null>(null);
  const name = part.type === 'dynamic-tool' ? 'tool' : part.type.slice('tool-'.length);
  const answer = (approved: boolean) => {
    if (!part.approval) return;
    setSent(approved ? 'approve' : 'deny');
    setError(null);
    demoApi.answerApproval(runId, part.approval.id, approved).catch((cause: unknown) => {
      setSent(null);
      setError(cause instanceof Error ? cause.message : String(cause));
    });
  };
  return (
    <div className={`tool-part tool-${part.state}`} data-testid="tool-part" data-state={part.state}>
      <div className="tool-head">
        <strong>{name}</strong> <span className="phase">{part.state}</span>
      </div>
      {part.input !== undefined && (
        <pre className="tool-io">
          <span>input </span>
          {json(part.input)}
        </pre>
      )}
      {part.state === 'output-available' && (
        <pre className="tool-io" data-testid="tool-output">
          <span>output </span>
          {json(part.output)}
        </pre>
      )}
      {part.state === 'output-error' && <p className="error">{part.errorText}</p>}
      {part.state === 'output-denied' && <p className="hint">Denied: the tool did not run.</p>}
      {part.state === 'approval-requested' && (
        <div className="approval" data-testid="approval">
          <span>This tool needs your approval.</span>
          <button
            type="button"
            data-testid="approve"
            disabled={sent !== null}
            onClick={() => answer(true)}
          >
            Approve
          </button>
          <button
            type="button"
            className="danger"
            data-testid="deny"
            disabled={sent !== null}
            onClick={() => answer(false)}
          >
            Deny
          </button>
          {error && <span className="error">{error}</span>}
        </div>
      )}
      {part.state === 'approval-responded' && (
        <p className="hint">{part.approval?.approved ? 'Approved' : 'Denied'}, continuing…</p>
      )}
    </div>
  );
}
