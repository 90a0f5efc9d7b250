import { isTerminalStatus, type RunSnapshot } from '@runlight/protocol';
import { drainPending } from './apply-event';
import type { RunState } from './run-state';

export interface MergeSnapshotOptions {
  /**
   * The clock offset (`serverClock - clientClock`, ms) estimated when this snapshot was
   * fetched. Kept even when the snapshot itself is stale.
   */
  clockOffsetMs?: number | null;
}

/**
 * Merges a validated snapshot (SPEC.md rule 1): at revision R it replaces the durable state
 * unless the state already holds R or more (equal revisions are equal facts, so the same
 * object comes back). Held gap events that now fit are applied. The live overlay survives
 * when it still builds on the snapshot's checkpoint.
 *
 * @example
 * const state = mergeSnapshot(initialRunState('run-1'), snapshot, { clockOffsetMs: 120 });
 */
export function mergeSnapshot(
  state: RunState,
  snapshot: RunSnapshot,
  options: MergeSnapshotOptions = {},
): RunState {
  let next = state;
  const offset = options.clockOffsetMs;
  if (offset !== undefined && offset !== null && offset !== state.clockOffsetMs) {
    next = { ...next, clockOffsetMs: offset };
  }
  if (snapshot.run.id !== state.runId) return next;
  if (state.run !== null && snapshot.revision <= state.revision) return next;

  const base = snapshot.assistant?.revision ?? 0;
  // The overlay survives only on the snapshot's checkpoint and under the same acquisition: a
  // new fencing token — or, in the public form without tokens, a new holder tag in `owner` —
  // means a takeover (or a resume) the events did not bring, and the overlay's deltas were
  // the previous owner's, never made durable (rules 1.4, 3.5).
  const keepLive =
    next.live !== null &&
    next.live.baseRevision === base &&
    !isTerminalStatus(snapshot.run.status) &&
    next.run?.fencingToken === snapshot.run.fencingToken &&
    next.run?.owner === snapshot.run.owner;
  return drainPending({
    ...next,
    run: snapshot.run,
    assistant: snapshot.assistant,
    revision: snapshot.revision,
    live: keepLive ? next.live : null,
  });
}
