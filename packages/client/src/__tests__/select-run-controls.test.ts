import type { AgentRun, RunStatus } from '@runlight/protocol';
import { approvalMessage, modelRequestOperation, snapshot } from '@runlight/test-utils';
import { describe, expect, it } from 'vitest';
import { runControlsEquals, selectRunControls } from '../controls/select-run-controls';
import { mergeSnapshot } from '../merge/merge-snapshot';
import { initialRunState } from '../merge/run-state';

const stateOf = (status: RunStatus, run: Partial<AgentRun> = {}, awaiting = false) =>
  mergeSnapshot(
    initialRunState('run-1'),
    snapshot(3, { status, ...run }, awaiting ? { revision: 2, message: approvalMessage } : null),
  );

const finished = modelRequestOperation('completed');
const inFlight = modelRequestOperation('started');

describe('selectRunControls', () => {
  it.each<[string, ReturnType<typeof stateOf> | null, boolean, string[]]>([
    ['not loaded', null, false, []],
    ['queued', stateOf('queued'), true, []],
    ['running, waiting for the model', stateOf('running', { lastOperation: inFlight }), true, []],
    [
      'running, awaiting approval',
      stateOf('running', { lastOperation: finished }, true),
      true,
      ['approval-1'],
    ],
    // The checkpoint still holds the request while the next step runs: not answerable now.
    [
      'running a step after the request',
      stateOf('running', { lastOperation: inFlight }, true),
      true,
      [],
    ],
    ['completed', stateOf('completed', {}, true), false, []],
    ['failed', stateOf('failed'), false, []],
    ['cancelled', stateOf('cancelled'), false, []],
  ])('%s', (_name, state, canCancel, approvalIds) => {
    const view = selectRunControls(state ?? initialRunState('run-1'));
    expect(view.canCancel).toBe(canCancel);
    expect(view.approvals.map((approval) => approval.approvalId)).toEqual(approvalIds);
  });

  it('lists a request with what the user judges: the tool and its input', () => {
    const view = selectRunControls(stateOf('running', { lastOperation: finished }, true));
    expect(view.approvals).toEqual([
      {
        approvalId: 'approval-1',
        toolCallId: 'call-1',
        toolName: 'runCommand',
        input: { cmd: 'ls' },
      },
    ]);
  });

  it('equal answers are the same object, so a selecting binding does not re-render', () => {
    expect(selectRunControls(stateOf('running'))).toBe(selectRunControls(stateOf('queued')));
    const awaiting = stateOf('running', { lastOperation: finished }, true);
    expect(selectRunControls(awaiting)).toBe(selectRunControls({ ...awaiting, revision: 3 }));
    expect(
      runControlsEquals(selectRunControls(awaiting), {
        canCancel: true,
        approvals: [{ approvalId: 'approval-1', toolCallId: 'x', toolName: 'y', input: null }],
      }),
    ).toBe(true);
    expect(
      runControlsEquals(selectRunControls(awaiting), selectRunControls(stateOf('running'))),
    ).toBe(false);
  });
});
