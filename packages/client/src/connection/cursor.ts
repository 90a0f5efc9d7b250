import type { RunState } from '../merge/run-state';

/**
 * The resume cursor built from the merged state (never just the last id seen): `"R"`, or
 * `"R:B:S"` once live deltas are merged — R the highest durable revision held without a gap,
 * B/S the base revision and seq of the last merged delta. `null` before the first snapshot.
 *
 * @example
 * cursorOf(state); // '12' or '12:11:4'
 */
export function cursorOf(state: RunState): string | null {
  if (state.run === null) return null;
  const { live } = state;
  return live === null || live.seq === 0
    ? `${state.revision}`
    : `${state.revision}:${live.baseRevision}:${live.seq}`;
}
