import {
  type Activity,
  cursorOf,
  describeActivity,
  type RunState,
  selectActivity,
  statusText,
} from '@runlight/client';

type Run = NonNullable<RunState['run']>;

/**
 * The activity a user saw at the state's own revision: its time is the run's `updatedAt` (the
 * moment the revision was written) on the client clock, so a lease is not yet expired then.
 */
export function activityThen(state: RunState): Activity {
  const run: Run | null = state.run;
  if (run === null) return selectActivity(state);
  return selectActivity(state, Date.parse(run.updatedAt) - (state.clockOffsetMs ?? 0));
}

/** The activity's words, as `RunStatus` says them. */
export function activityText(activity: Activity, recovers: boolean): string {
  return statusText(describeActivity(activity, undefined, { recovers }));
}

/** The cursor the store resumes from, or `–`. */
export function cursorText(state: RunState): string {
  return cursorOf(state) ?? '–';
}

/** A byte count in words: `812 B`, `3.4 KB`. */
export function formatBytes(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`;
}

/** A client wall-clock time as `HH:MM:SS.mmm` (local). */
export function formatClock(ms: number): string {
  const date = new Date(ms);
  const pad = (value: number, width = 2) => String(value).padStart(width, '0');
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`;
}
