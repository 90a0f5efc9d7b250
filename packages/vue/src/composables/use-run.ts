import {
  type Activity,
  activityEquals,
  connectionEquals,
  type RunConnection,
  type RunState,
  selectActivity,
  selectConnection,
  selectOperation,
} from '@runlight/client';
import type { RunOperation } from '@runlight/protocol';
import type { MaybeRefOrGetter, ShallowRef } from 'vue';
import { type RunView, selectRunView } from './select-run-view';
import { useStoreSelection } from './use-store-selection';

export interface UseRunOptions<T> {
  select: (state: RunState) => T;
  isEqual?: (a: T, b: T) => boolean;
}

/**
 * A run's live state as a ref: a `RunView` (`state`, `run`, `message`, `activity`,
 * `connection`, `error`), or your selection — the ref changes only when the selection does.
 * `runId` may be a ref or getter: the composable follows it.
 *
 * @example
 * const run = useRun(() => props.runId);
 * const text = useRun(runId, { select: (state) => selectMessage(state)?.parts.length ?? 0 });
 */
export function useRun(runId: MaybeRefOrGetter<string>): Readonly<ShallowRef<RunView>>;
export function useRun<T>(
  runId: MaybeRefOrGetter<string>,
  options: UseRunOptions<T>,
): Readonly<ShallowRef<T>>;
export function useRun<T>(
  runId: MaybeRefOrGetter<string>,
  options?: UseRunOptions<T>,
): Readonly<ShallowRef<T | RunView>> {
  return useStoreSelection<T | RunView>(
    'useRun',
    runId,
    options?.select ?? selectRunView,
    options?.isEqual as ((a: T | RunView, b: T | RunView) => boolean) | undefined,
  );
}

/**
 * The run's activity (`selectActivity`); changes only when the activity does, not per delta.
 *
 * @example
 * const activity = useRunActivity(runId); // activity.value.kind === 'streaming'
 */
export function useRunActivity(runId: MaybeRefOrGetter<string>): Readonly<ShallowRef<Activity>> {
  return useStoreSelection('useRunActivity', runId, selectActivity, activityEquals);
}

/** The run's last operation (the durable record of what it is doing), or null. */
export function useRunOperation(
  runId: MaybeRefOrGetter<string>,
): Readonly<ShallowRef<RunOperation | null>> {
  return useStoreSelection('useRunOperation', runId, selectOperation);
}

export type { RunConnection };

/**
 * The live connection's state (`connecting`, `live`, `reconnecting`, `offline`,
 * `unauthorized`, `closed`, …) and the last error.
 *
 * @example
 * const connection = useRunConnection(runId); // connection.value.state === 'closed'
 */
export function useRunConnection(
  runId: MaybeRefOrGetter<string>,
): Readonly<ShallowRef<RunConnection>> {
  return useStoreSelection('useRunConnection', runId, selectConnection, connectionEquals);
}
