import type { RunOperation } from '@runlight/protocol';
import type { RunState } from '../merge/run-state';

/**
 * The run's `lastOperation` (model request or compaction, with its original timestamps), or
 * `null`; the same object until the record is replaced.
 *
 * @example
 * const operation = selectOperation(store.getState()); // { kind: 'model-request', phase: 'started', … }
 */
export function selectOperation(state: RunState): RunOperation | null {
  return state.run?.lastOperation ?? null;
}
