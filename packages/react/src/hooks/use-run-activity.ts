import { type Activity, activityEquals, selectActivity } from '@runlight/client';
import { useRunStore } from '../provider/use-run-store';
import { useStoreSelector } from '../provider/use-store-selector';

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
