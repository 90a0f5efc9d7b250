import type { Activity } from '../select/select-activity';

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
