import { type RunState, selectMessage } from '@runlight/client';
import type { UIMessage } from '@runlight/protocol';
import { useRun } from '@runlight/react';
import { Fragment, useRef, useState } from 'react';
import { demoApi } from './demo-api-client';
import { droppedCharacters, messageBlocks, messageText } from './message-blocks';

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

const selectOwner = (state: RunState) => state.run?.owner ?? null;

/**
 * Characters the page showed that the message no longer holds: text streamed live but never
 * stored, gone when another worker continued from the last checkpoint. Only grows; the same
 * text on a second render changes nothing.
 */
function useDroppedText(text: string): number {
  const seen = useRef({ shown: '', dropped: 0 });
  const dropped = droppedCharacters(seen.current.shown, text);
  if (dropped > 0) seen.current.dropped += dropped;
  seen.current.shown = text;
  return seen.current.dropped;
}

/** The assistant message so far: the durable checkpoint with the live deltas applied. */
export function AssistantMessage({ runId }: { runId: string }) {
  const message = useRun(runId, { select: selectMessage });
  const owner = useRun(runId, { select: selectOwner });
  const dropped = useDroppedText(messageText(message));
  if (message === null || message.parts.length === 0) {
    return <p className="hint">Nothing written yet.</p>;
  }
  return (
    <div className="message" data-testid="assistant-message" data-dropped-characters={dropped}>
      {dropped > 0 && (
        <p className="notice" data-testid="dropped-text">
          {dropped} character{dropped === 1 ? '' : 's'} shown earlier
          {dropped === 1 ? ' was' : ' were'} streamed live but never stored: the worker lost the run
          before its next checkpoint, and {owner ?? 'the next owner'} continues from the last one.
          The text below is what the store holds.
        </p>
      )}
      {messageBlocks(message.parts).map((block) => {
        if (block.type === 'step') {
          return (
            <div key={block.key} className="step-divider" data-testid="step-divider">
              step {block.step}
            </div>
          );
        }
        if (block.type === 'text') {
          return (
            <p key={block.key} className="text-part" data-testid="message-text">
              {block.segments.map((segment, index) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: segments only ever append
                <Fragment key={index}>
                  {index > 0 && (
                    <span
                      className="handover"
                      role="img"
                      aria-label="another worker continued here"
                      title="Another worker took the run over and continued from here"
                    />
                  )}
                  {segment}
                </Fragment>
              ))}
            </p>
          );
        }
        const { part } = block;
        if (part.type === 'reasoning') {
          return (
            <p key={block.key} className="reasoning-part" data-testid="message-reasoning">
              {part.text}
            </p>
          );
        }
        if (isToolPart(part)) return <ToolCall key={block.key} runId={runId} part={part} />;
        return (
          <p key={block.key} className="hint">
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
