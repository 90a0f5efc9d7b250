/** A value, or a function that reads it (so a prop can change: `() => runId`). */
export type MaybeGetter<T> = T | (() => T);

/** Reads a `MaybeGetter` (inside a `$derived` or a getter, so a changed prop is followed). */
export function read<T>(value: MaybeGetter<T>): T {
  return typeof value === 'function' ? (value as () => T)() : value;
}
