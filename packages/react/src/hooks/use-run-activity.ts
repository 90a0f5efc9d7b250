import { type Activity, selectActivity } from '@runlight/client';
import { useRunStore } from '../provider/use-run-store';
import { useStoreSelector } from '../provider/use-store-selector';

/**
 * Whether two activities show the same thing: kind, start, failure and operation. A checkpoint
 * or a text delta changes none of them, so a status display does not re-render on them.
 *
 * @example
 * activityEquals(selectActivity(before), selectActivity(after)); // true across text deltas
 */
export function activityEquals(a: Activity, b: Activity): boolean {
  return (
    a === b ||
    (a.kind === b.kind &&
      a.since === b.since &&
      a.failure?.code === b.failure?.code &&
      a.attempt === b.attempt &&
      a.operation === b.operation)
  );
}

/**
 * What a run is doing (`loading`, `compacting`, `waiting-for-model`, `streaming`, …), from
 * durable facts only. Re-renders when the activity changes, never on text deltas.
 *
 * @example
 * const activity = useRunActivity(runId);
 * if (activity.kind === 'failed') console.log(activity.failure?.code);
 */
export function useRunActivity(runId: string): Activity {
  return useStoreSelector(useRunStore('useRunActivity', runId), selectActivity, activityEquals);
}
