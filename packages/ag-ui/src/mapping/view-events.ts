import { type BaseEvent, EventType } from '@ag-ui/core';
import { OPERATION_ACTIVITY_TYPE } from './operation-activity';
import type { RunView, ViewPart } from './run-view';

/** The id of the run's one `runlight.operation` activity message. */
export const activityMessageIdOf = (runId: string) => `${runId}:operation`;

type Tool = Extract<ViewPart, { kind: 'tool' }>;
type Streamed = Extract<ViewPart, { kind: 'text' | 'reasoning' }>;

const lastStepOf = (parts: readonly ViewPart[]) =>
  parts.findLast((part) => part.kind === 'step')?.name ?? null;

function textStart(part: Streamed): BaseEvent {
  return part.kind === 'text'
    ? { type: EventType.TEXT_MESSAGE_START, messageId: part.id, role: 'assistant' }
    : { type: EventType.REASONING_MESSAGE_START, messageId: part.id, role: 'reasoning' };
}

function textContent(part: Streamed, delta: string): BaseEvent[] {
  if (delta === '') return [];
  const type =
    part.kind === 'text' ? EventType.TEXT_MESSAGE_CONTENT : EventType.REASONING_MESSAGE_CONTENT;
  return [{ type, messageId: part.id, delta }];
}

function textEnd(part: Streamed): BaseEvent {
  const type = part.kind === 'text' ? EventType.TEXT_MESSAGE_END : EventType.REASONING_MESSAGE_END;
  return { type, messageId: part.id };
}

function toolStart(part: Tool): BaseEvent {
  return {
    type: EventType.TOOL_CALL_START,
    toolCallId: part.toolCallId,
    toolCallName: part.name,
    parentMessageId: part.id,
  };
}

function toolArgs(part: Tool): BaseEvent[] {
  return [
    ...(part.args === '' || part.args === null
      ? []
      : [{ type: EventType.TOOL_CALL_ARGS, toolCallId: part.toolCallId, delta: part.args }]),
    { type: EventType.TOOL_CALL_END, toolCallId: part.toolCallId },
  ];
}

function toolResult(part: Tool): BaseEvent[] {
  if (part.result === null) return [];
  return [
    {
      type: EventType.TOOL_CALL_RESULT,
      messageId: `${part.toolCallId}:result`,
      toolCallId: part.toolCallId,
      content: part.result,
      role: 'tool',
    },
  ];
}

/** Everything a part that was not there before adds, from its start. */
function newPart(part: ViewPart): BaseEvent[] {
  switch (part.kind) {
    case 'step':
      return [{ type: EventType.STEP_STARTED, stepName: part.name }];
    case 'text':
    case 'reasoning':
      return [
        textStart(part),
        ...textContent(part, part.text),
        ...(part.open ? [] : [textEnd(part)]),
      ];
    case 'tool':
      return [toolStart(part), ...(part.args === null ? [] : toolArgs(part)), ...toolResult(part)];
  }
}

/** What changed in a part both views hold (a part's kind and id never change). */
function changedPart(before: ViewPart, after: ViewPart): BaseEvent[] {
  if ((before.kind === 'text' || before.kind === 'reasoning') && after.kind === before.kind) {
    // A delta only ever appends; a checkpoint that rewrote the text (never expected) is shown
    // from where the client is, rather than doubled.
    const delta = after.text.startsWith(before.text) ? after.text.slice(before.text.length) : '';
    // A closed part that streams again (a takeover continues the text part the dead owner
    // streamed: it re-opens, then grows) is re-opened first — AG-UI's reducer appends to the
    // message of the same id.
    const reopen = !before.open && (after.open || delta !== '');
    return [
      ...(reopen ? [textStart(after)] : []),
      ...textContent(after, delta),
      ...((before.open || reopen) && !after.open ? [textEnd(after)] : []),
    ];
  }
  if (before.kind === 'tool' && after.kind === 'tool') {
    return [
      ...(before.args === null && after.args !== null ? toolArgs(after) : []),
      ...(before.result === null ? toolResult(after) : []),
    ];
  }
  return [];
}

/**
 * The AG-UI events that take a client from `before` to `after`: text and reasoning deltas, tool
 * calls, arguments and results, steps, and a delta of the `runlight.operation` activity. Never
 * repeats what `before` holds, so nothing is doubled.
 *
 * @example
 * const events = eventsBetween(sentView, nextView);
 */
export function eventsBetween(before: RunView, after: RunView): BaseEvent[] {
  const events: BaseEvent[] = [];
  const shared = Math.min(before.parts.length, after.parts.length);
  for (let index = 0; index < shared; index++) {
    events.push(...changedPart(before.parts[index]!, after.parts[index]!));
  }
  let openStep = lastStepOf(before.parts);
  for (const part of after.parts.slice(shared)) {
    if (part.kind === 'step' && openStep !== null) {
      events.push({ type: EventType.STEP_FINISHED, stepName: openStep });
    }
    if (part.kind === 'step') openStep = part.name;
    events.push(...newPart(part));
  }
  const patch = Object.keys(after.activity).flatMap((key) => {
    const field = key as keyof RunView['activity'];
    const value = after.activity[field];
    return JSON.stringify(before.activity[field]) === JSON.stringify(value)
      ? []
      : [{ op: 'replace' as const, path: `/${key}`, value }];
  });
  if (patch.length > 0) {
    events.push({
      type: EventType.ACTIVITY_DELTA,
      messageId: activityMessageIdOf(after.runId),
      activityType: OPERATION_ACTIVITY_TYPE,
      patch,
    });
  }
  return events;
}

/**
 * After a `MESSAGES_SNAPSHOT` holds `view`, re-opens what is still in flight — the open step,
 * a streaming text or reasoning message (its text so far is in the snapshot), a tool call whose
 * arguments are still streaming — so the live deltas that follow continue it, undoubled.
 */
export function reopeningEvents(view: RunView): BaseEvent[] {
  const events: BaseEvent[] = [];
  const step = lastStepOf(view.parts);
  if (step !== null) events.push({ type: EventType.STEP_STARTED, stepName: step });
  for (const part of view.parts) {
    if ((part.kind === 'text' || part.kind === 'reasoning') && part.open)
      events.push(textStart(part));
    if (part.kind === 'tool' && part.args === null) events.push(toolStart(part));
  }
  return events;
}

/** Closes whatever `view` left open (before the run's end, or an interrupt, is sent). */
export function closingEvents(view: RunView): BaseEvent[] {
  const events: BaseEvent[] = [];
  for (const part of view.parts) {
    if ((part.kind === 'text' || part.kind === 'reasoning') && part.open)
      events.push(textEnd(part));
    if (part.kind === 'tool' && part.args === null) {
      events.push({ type: EventType.TOOL_CALL_END, toolCallId: part.toolCallId });
    }
  }
  const step = lastStepOf(view.parts);
  if (step !== null) events.push({ type: EventType.STEP_FINISHED, stepName: step });
  return events;
}

/**
 * The event that ends the AG-UI run for `view`, or `null` while it goes on: `RUN_FINISHED`
 * (completed; `cancelled`; an `interrupt` outcome naming the approvals it waits for) or
 * `RUN_ERROR` with the failure's code — never provider text.
 */
export function endEventOf(view: RunView, threadId: string): BaseEvent | null {
  const finished = { type: EventType.RUN_FINISHED, threadId, runId: view.runId };
  switch (view.status) {
    case 'completed':
      return finished;
    case 'cancelled':
      return { ...finished, outcome: { type: 'cancelled' } };
    case 'failed': {
      const code = view.failure?.code ?? 'internal';
      return { type: EventType.RUN_ERROR, message: `The run failed (${code})`, code };
    }
    default:
      return view.interrupts.length > 0
        ? { ...finished, outcome: { type: 'interrupt', interrupts: [...view.interrupts] } }
        : null;
  }
}
