import type { AgentRuntimeStore } from '../../store/agent-runtime-store';
import type { RunInputs } from '../../store/run-inputs';

/**
 * The store's run inputs, which list a chat's runs — the chat routes cannot ask the policy
 * about a chat without them, so a store that keeps none is refused when the route is built.
 *
 * @example
 * const inputs = chatRunsOf(store); // throws TypeError for a store without run inputs
 */
export function chatRunsOf(store: Pick<AgentRuntimeStore, 'runInputs'>): RunInputs {
  const inputs = store?.runInputs;
  if (!inputs) {
    throw new TypeError(
      'The chat routes need a store that keeps run inputs (conversations): a chat is asked ' +
        'about with its runs (`store.runInputs`, the memory and PostgreSQL drivers have it)',
    );
  }
  return inputs;
}
