import {
  type Activity,
  type ConnectionState,
  type RunlightClientError,
  type RunState,
  selectActivity,
  selectMessage,
} from '@runlight/client';
import type { AgentRun, UIMessage } from '@runlight/protocol';

/** What `useRun` gives without a `select`: the run's state and what most views read of it. */
export interface RunView {
  readonly state: RunState;
  readonly run: AgentRun | null;
  readonly message: UIMessage | null;
  readonly activity: Activity;
  readonly connection: ConnectionState;
  readonly error: RunlightClientError | null;
}

const views = new WeakMap<RunState, RunView>();

/**
 * The `RunView` of a state, memoised per state object.
 *
 * @example
 * const view = selectRunView(client.run(runId).getState());
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
