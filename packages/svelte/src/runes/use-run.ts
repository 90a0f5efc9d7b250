import {
  type Activity,
  activityEquals,
  connectionEquals,
  type RunConnection,
  type RunState,
  type RunView,
  selectActivity,
  selectConnection,
  selectOperation,
  selectRunView,
} from '@runlight/client';
import type { RunOperation } from '@runlight/protocol';
import type { MaybeGetter } from './maybe-getter.js';
import { type Current, selectionOf } from './run-store-of.js';

export interface UseRunOptions<T> {
  /** Picks the slice a component needs, e.g. `selectMessage`; it updates when that changes. */
  select: (state: RunState) => T;
  /** How two selections compare (default `Object.is`). */
  isEqual?: (a: T, b: T) => boolean;
}

/**
 * The live, merged state of a run, in `.current`. The run's connection opens with the first
 * component that shows it and closes after the last one is gone (one connection however many
 * components). Without `select` it is a `RunView` that changes with every text delta — a
 * transcript wants that; a status display wants `useRunActivity`.
 *
 * @example
 * const run = useRun(() => runId);
 * // {run.current.message?.parts.length}
 */
export function useRun(runId: MaybeGetter<string>): Current<RunView>;
export function useRun<T>(runId: MaybeGetter<string>, options: UseRunOptions<T>): Current<T>;
export function useRun<T>(
  runId: MaybeGetter<string>,
  options?: UseRunOptions<T>,
): Current<T | RunView> {
  if (options === undefined) return selectionOf('useRun', runId, selectRunView);
  return selectionOf('useRun', runId, options.select, options.isEqual);
}

/**
 * What a run is doing (`loading`, `compacting`, `waiting-for-model`, `streaming`, …), from
 * durable facts only; changes with the activity, never with text deltas.
 *
 * @example
 * const activity = useRunActivity(() => runId); // activity.current.kind
 */
export function useRunActivity(runId: MaybeGetter<string>): Current<Activity> {
  return selectionOf('useRunActivity', runId, selectActivity, activityEquals);
}

/**
 * The run's `lastOperation` (model request or compaction, with its original timestamps), or
 * `null`.
 *
 * @example
 * const operation = useRunOperation(() => runId); // operation.current?.phase
 */
export function useRunOperation(runId: MaybeGetter<string>): Current<RunOperation | null> {
  return selectionOf('useRunOperation', runId, selectOperation);
}

/**
 * The live connection of a run and its last error, e.g. for a "Reconnecting…" banner.
 *
 * @example
 * const connection = useRunConnection(() => runId); // connection.current.state
 */
export function useRunConnection(runId: MaybeGetter<string>): Current<RunConnection> {
  return selectionOf('useRunConnection', runId, selectConnection, connectionEquals);
}

export { type RunConnection, type RunView, selectRunView };
