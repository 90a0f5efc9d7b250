import type { Interrupt } from '@ag-ui/core';
import type { RunState } from '@runlight/client';
import { selectMessage } from '@runlight/client';
import type { RunFailure, RunStatus, UIMessage } from '@runlight/protocol';
import { interruptIdOf } from './interrupt-id';
import { type OperationActivityContent, operationActivityOf } from './operation-activity';

/**
 * One part of the run's assistant message as AG-UI shows it. Ids are stable for the life of the
 * run — `<messageId>-<partIndex>` — because the message's parts only ever grow: a reconnecting
 * client and one that watched from the start name every message alike.
 */
export type ViewPart =
  | { readonly kind: 'step'; readonly name: string }
  | { readonly kind: 'text'; readonly id: string; readonly text: string; readonly open: boolean }
  | {
      readonly kind: 'reasoning';
      readonly id: string;
      readonly text: string;
      readonly open: boolean;
    }
  | {
      readonly kind: 'tool';
      /** The assistant message that holds the call (`parentMessageId`). */
      readonly id: string;
      readonly toolCallId: string;
      readonly name: string;
      /** The arguments as JSON once the input is complete; `null` while it streams. */
      readonly args: string | null;
      /** The tool message's content once there is a result, error or denial. */
      readonly result: string | null;
    };

/** What an AG-UI client is shown of a run at one moment: a projection of its durable facts. */
export interface RunView {
  readonly runId: string;
  readonly status: RunStatus;
  readonly failure: RunFailure | null;
  readonly parts: readonly ViewPart[];
  readonly activity: OperationActivityContent;
  /** The approvals the run waits for (only while it does), as AG-UI interrupts. */
  readonly interrupts: readonly Interrupt[];
}

type Part = UIMessage['parts'][number];
type ToolPart = Part & {
  toolCallId: string;
  state: string;
  input?: unknown;
  output?: unknown;
  errorText?: string;
  toolName?: string;
  approval?: { id: string; approved?: boolean; reason?: string };
};

function toolNameOf(part: Part): string | null {
  if (part.type === 'dynamic-tool') return (part as { toolName?: string }).toolName ?? 'tool';
  return part.type.startsWith('tool-') ? part.type.slice('tool-'.length) : null;
}

const json = (value: unknown) => JSON.stringify(value ?? null);

function resultOf(part: ToolPart): string | null {
  switch (part.state) {
    case 'output-available':
      return json(part.output);
    case 'output-error':
      return json({ error: part.errorText ?? 'The tool failed' });
    case 'output-denied':
      return json({
        denied: true,
        ...(part.approval?.reason ? { reason: part.approval.reason } : {}),
      });
    default:
      return null;
  }
}

/** The parts of the assistant message, in order, as AG-UI shows them. */
export function viewPartsOf(message: UIMessage | null): ViewPart[] {
  if (message === null) return [];
  const parts: ViewPart[] = [];
  let steps = 0;
  message.parts.forEach((part, index) => {
    const id = `${message.id}-${index}`;
    if (part.type === 'step-start') {
      parts.push({ kind: 'step', name: `step-${steps++}` });
    } else if (part.type === 'text' || part.type === 'reasoning') {
      const { text, state } = part as { text: string; state?: string };
      parts.push({ kind: part.type, id, text, open: state === 'streaming' });
    } else {
      const name = toolNameOf(part);
      if (name === null) return; // files, sources, data parts: not part of AG-UI's messages
      const tool = part as ToolPart;
      const args = tool.state === 'input-streaming' ? null : json(tool.input);
      parts.push({
        kind: 'tool',
        id,
        toolCallId: tool.toolCallId,
        name,
        args,
        result: resultOf(tool),
      });
    }
  });
  return parts;
}

function interruptsOf(runId: string, message: UIMessage | null, answered: ReadonlySet<string>) {
  if (message === null) return [];
  const interrupts: Interrupt[] = [];
  for (const part of message.parts) {
    const tool = part as ToolPart;
    const name = toolNameOf(part);
    if (name === null || tool.state !== 'approval-requested' || !tool.approval) continue;
    if (answered.has(tool.approval.id)) continue;
    interrupts.push({
      id: interruptIdOf(runId, tool.approval.id),
      reason: 'tool_approval',
      message: `Approve the call of ${name}?`,
      toolCallId: tool.toolCallId,
      responseSchema: {
        type: 'object',
        properties: { approved: { type: 'boolean' }, reason: { type: 'string' } },
        required: ['approved'],
      },
    });
  }
  return interrupts;
}

/**
 * The AG-UI view of a run's merged state (`@runlight/client`'s `RunState`: the durable record,
 * the checkpoint and the live deltas), or `null` before its first snapshot. `answered` names
 * approvals already answered durably but not yet applied by the run's executor: they are never
 * offered again.
 *
 * @example
 * const view = runViewOf(store.getState(), { now: Date.now(), answered: new Set() });
 */
export function runViewOf(
  state: RunState,
  options: { now: number; answered: ReadonlySet<string> },
): RunView | null {
  const activity = operationActivityOf(state, options.now);
  if (state.run === null || activity === null) return null;
  const message = selectMessage(state);
  // Paused for approvals once the owner released its lease (`lease-released`): until then the
  // execution is still winding down, and ending the AG-UI run earlier would leave the client a
  // record older than the one a reload shows.
  const waiting = activity.kind === 'awaiting-approval' && state.run.leaseExpiresAt === null;
  return {
    runId: state.run.id,
    status: state.run.status,
    failure: state.run.failure,
    parts: viewPartsOf(message),
    activity,
    interrupts: waiting ? interruptsOf(state.run.id, message, options.answered) : [],
  };
}
