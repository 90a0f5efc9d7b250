import { selectOperation } from '@runlight/client';
import type { RunOperation } from '@runlight/protocol';
import { useRunStore } from '../provider/use-run-store';
import { useStoreSelector } from '../provider/use-store-selector';

/**
 * The run's `lastOperation` (model request or compaction, with its original timestamps), or
 * `null`. Re-renders only when the operation record is replaced.
 *
 * @example
 * const operation = useRunOperation(runId); // { kind: 'model-request', phase: 'started', startedAt, … }
 */
export function useRunOperation(runId: string): RunOperation | null {
  return useStoreSelector(useRunStore('useRunOperation', runId), selectOperation);
}
