import { EventType } from '@ag-ui/core';
import { describe, expect, it } from 'vitest';
import type { OperationActivityContent } from '../mapping/operation-activity';
import type { RunView, ViewPart } from '../mapping/run-view';
import { closingEvents, endEventOf, eventsBetween, reopeningEvents } from '../mapping/view-events';

const activity: OperationActivityContent = {
  runId: 'run-1',
  status: 'running',
  kind: 'streaming',
  since: '2026-12-05T10:00:00.000Z',
  operation: null,
  attempt: null,
  failure: null,
  interrupted: null,
  leaseExpiresAt: '2026-12-05T10:00:30.000Z',
};

const view = (parts: ViewPart[], extra: Partial<RunView> = {}): RunView => ({
  runId: 'run-1',
  status: 'running',
  failure: null,
  parts,
  activity,
  interrupts: [],
  ...extra,
});
const step = (n: number): ViewPart => ({ kind: 'step', name: `step-${n}` });
const text = (textValue: string, open = true): ViewPart => ({
  kind: 'text',
  id: 'm-1',
  text: textValue,
  open,
});
const call = (args: string | null, result: string | null = null): ViewPart => ({
  kind: 'tool',
  id: 'm-2',
  toolCallId: 'call-1',
  name: 'pay',
  args,
  result,
});
const types = (events: { type: string }[]) => events.map((event) => event.type);

/** Each row: what the client was sent, what the run holds now, the events between. */
describe('eventsBetween: the events from one view to the next', () => {
  it.each([
    [
      'text grows: only the new characters',
      [step(0), text('Hel')],
      [step(0), text('Hello')],
      [[EventType.TEXT_MESSAGE_CONTENT, 'lo']],
    ],
    [
      'text closes',
      [step(0), text('Hello')],
      [step(0), text('Hello', false)],
      [[EventType.TEXT_MESSAGE_END, undefined]],
    ],
    [
      'a closed text grows again (a takeover continues it): re-opened first',
      [step(0), text('Hel', false)],
      [step(0), text('Hello', false)],
      [
        [EventType.TEXT_MESSAGE_START, undefined],
        [EventType.TEXT_MESSAGE_CONTENT, 'lo'],
        [EventType.TEXT_MESSAGE_END, undefined],
      ],
    ],
    [
      'a closed text streams again, nothing new yet: re-opened',
      [step(0), text('Hel', false)],
      [step(0), text('Hel')],
      [[EventType.TEXT_MESSAGE_START, undefined]],
    ],
    ['nothing changed: nothing sent', [step(0), text('Hello')], [step(0), text('Hello')], []],
    [
      'a new step closes the previous one',
      [step(0), text('Hi', false)],
      [step(0), text('Hi', false), step(1)],
      [
        [EventType.STEP_FINISHED, undefined],
        [EventType.STEP_STARTED, undefined],
      ],
    ],
    [
      'tool arguments arrive whole, then the call ends',
      [step(0), call(null)],
      [step(0), call('{"amount":5}')],
      [
        [EventType.TOOL_CALL_ARGS, '{"amount":5}'],
        [EventType.TOOL_CALL_END, undefined],
      ],
    ],
    [
      'a tool result',
      [step(0), call('{}')],
      [step(0), call('{}', '{"paid":5}')],
      [[EventType.TOOL_CALL_RESULT, undefined]],
    ],
  ] as const)('%s', (_, before, after, expected) => {
    const events = eventsBetween(view([...before]), view([...after]));
    expect(events.map((event) => [event.type, event.delta])).toEqual(expected);
  });

  it('the activity changes by a replace of the changed fields only', () => {
    const next = view([], { activity: { ...activity, kind: 'waiting-for-model', attempt: 2 } });
    const [delta] = eventsBetween(view([]), next);
    expect(delta).toMatchObject({
      type: EventType.ACTIVITY_DELTA,
      messageId: 'run-1:operation',
      activityType: 'runlight.operation',
      patch: [
        { op: 'replace', path: '/kind', value: 'waiting-for-model' },
        { op: 'replace', path: '/attempt', value: 2 },
      ],
    });
  });
});

describe('after a snapshot, at the end', () => {
  it('re-opens what is in flight and closes it again before the end', () => {
    const inFlight = view([step(0), text('Hel'), call(null)]);
    expect(types(reopeningEvents(inFlight))).toEqual([
      EventType.STEP_STARTED,
      EventType.TEXT_MESSAGE_START,
      EventType.TOOL_CALL_START,
    ]);
    expect(types(closingEvents(inFlight))).toEqual([
      EventType.TEXT_MESSAGE_END,
      EventType.TOOL_CALL_END,
      EventType.STEP_FINISHED,
    ]);
  });

  it.each([
    ['completed', {}, { type: EventType.RUN_FINISHED }],
    ['cancelled', {}, { type: EventType.RUN_FINISHED, outcome: { type: 'cancelled' } }],
    [
      'failed',
      { failure: { code: 'provider_failure' as const } },
      { type: EventType.RUN_ERROR, code: 'provider_failure' },
    ],
  ] as const)('a %s run ends the AG-UI run', (status, extra, expected) => {
    expect(endEventOf(view([], { status, ...extra }), 'thread-1')).toMatchObject(expected);
  });

  it('a run that waits for approvals ends the AG-UI run with an interrupt; a running one goes on', () => {
    const interrupt = { id: 'run-1/approval-1', reason: 'tool_approval' };
    expect(endEventOf(view([], { interrupts: [interrupt] }), 't')).toMatchObject({
      outcome: { type: 'interrupt', interrupts: [interrupt] },
    });
    expect(endEventOf(view([]), 't')).toBeNull();
  });
});
