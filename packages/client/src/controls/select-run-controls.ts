import { isTerminalStatus } from '@runlight/protocol';
import type { RunState } from '../merge/run-state';

/**
 * What a person can do to a run now, from its durable facts — what a Stop button and the
 * approval buttons follow.
 */
export interface RunControlsView {
  /**
   * A cancel can be recorded now: the run is loaded and has not ended (queued, running,
   * paused for approvals). False before the first snapshot and once the run ended — the server
   * would answer `409 run_ended`.
   */
  readonly canCancel: boolean;
}

const NONE: RunControlsView = Object.freeze({ canCancel: false });
const CANCELLABLE: RunControlsView = Object.freeze({ canCancel: true });

/**
 * Selects what can be done to the run now. Returns one of a few frozen objects for equal
 * answers, so a binding selecting it re-renders only when the answer changes.
 *
 * @example
 * const { canCancel } = selectRunControls(store.getState());
 * stopButton.disabled = !canCancel;
 */
export function selectRunControls(state: RunState): RunControlsView {
  const { run } = state;
  if (run === null || isTerminalStatus(run.status)) return NONE;
  return CANCELLABLE;
}

/**
 * Equal when the controls would show the same thing.
 *
 * @example
 * useRun(runId, { select: selectRunControls, isEqual: runControlsEquals });
 */
export function runControlsEquals(a: RunControlsView, b: RunControlsView): boolean {
  return a === b || a.canCancel === b.canCancel;
}
