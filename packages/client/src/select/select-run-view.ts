import type { AgentRun, UIMessage } from '@runlight/protocol';
import type { RunlightClientError } from '../errors/runlight-client-error';
import type { ConnectionState, RunState } from '../merge/run-state';
import { type Activity, selectActivity } from './select-activity';
import { selectMessage } from './select-message';

/**
 * What every binding's `useRun` gives by default: the merged state and the client's selections of
 * it, one object per state.
 */
export interface RunView {
  readonly state: RunState;
  /** The durable run record, `null` until the first snapshot. */
  readonly run: AgentRun | null;
  /** The assistant message so far: the checkpoint with live deltas applied. */
  readonly message: UIMessage | null;
  readonly activity: Activity;
  readonly connection: ConnectionState;
  /** The last bad input or transport failure; everything else is the last good state. */
  readonly error: RunlightClientError | null;
}

const views = new WeakMap<RunState, RunView>();

/**
 * The `RunView` of a state; the same state gives the same object (a stable selection for
 * `useSyncExternalStore`, Vue's and Svelte's readers alike).
 *
 * @example
 * const { message, activity } = selectRunView(store.getState());
 */
export function selectRunView(state: RunState): RunView {
  let view = views.get(state);
  if (view === undefined) {
    view = {
      state,
      run: state.run,
      message: selectMessage(state),
      activity: selectActivity(state),
      connection: state.connection,
      error: state.error,
    };
    views.set(state, view);
  }
  return view;
}
