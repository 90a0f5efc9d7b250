import type { RunState } from '@runlight/client';
import { useRunStore } from '../provider/use-run-store';
import { useStoreSelector } from '../provider/use-store-selector';
import { type RunView, selectRunView } from './select-run-view';

export interface UseRunOptions<T> {
  /** Picks the slice a component needs, e.g. `selectMessage`; it re-renders when that changes. */
  select: (state: RunState) => T;
  /** How two selections compare (default `Object.is`). */
  isEqual?: (a: T, b: T) => boolean;
}

/**
 * The live, merged state of a run. The run's connection opens with the first component that
 * uses it and closes after the last one unmounts (one connection however many components and
 * StrictMode remounts). Without `select` it returns a `RunView` and re-renders on every change,
 * text deltas included — a transcript wants that; a status display wants `useRunActivity`.
 *
 * @example
 * const { message } = useRun(runId);
 * const text = useRun(runId, { select: (state) => selectMessage(state)?.parts.length ?? 0 });
 */
export function useRun(runId: string): RunView;
export function useRun<T>(runId: string, options: UseRunOptions<T>): T;
export function useRun<T>(runId: string, options?: UseRunOptions<T>): T | RunView {
  return useStoreSelector<T | RunView>(
    useRunStore('useRun', runId),
    options?.select ?? selectRunView,
    options?.isEqual as ((a: T | RunView, b: T | RunView) => boolean) | undefined,
  );
}
