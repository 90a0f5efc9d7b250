import type { RunStatus } from '@runlight/protocol';
import { snapshot } from '@runlight/test-utils';
import { describe, expect, it } from 'vitest';
import { runControlsEquals, selectRunControls } from '../controls/select-run-controls';
import { mergeSnapshot } from '../merge/merge-snapshot';
import { initialRunState } from '../merge/run-state';

const stateOf = (status: RunStatus) =>
  mergeSnapshot(initialRunState('run-1'), snapshot(3, { status }));

describe('selectRunControls', () => {
  it.each<[RunStatus | 'not loaded', boolean]>([
    ['not loaded', false],
    ['queued', true],
    ['running', true],
    ['completed', false],
    ['failed', false],
    ['cancelled', false],
  ])('a run %s: canCancel %s', (status, canCancel) => {
    const state = status === 'not loaded' ? initialRunState('run-1') : stateOf(status);
    expect(selectRunControls(state).canCancel).toBe(canCancel);
  });

  it('equal answers are the same object, so a selecting binding does not re-render', () => {
    expect(selectRunControls(stateOf('running'))).toBe(selectRunControls(stateOf('queued')));
    expect(runControlsEquals(selectRunControls(stateOf('running')), { canCancel: true })).toBe(
      true,
    );
  });
});
