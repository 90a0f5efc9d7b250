import type { RunDeltaEvent, RunEvent } from '@runlight/protocol';

/*
 * What a process's run events are followed through, in a leaf of its own: the hub implements a
 * bus, and a bus is a source — with the source beside the hub they imported each other's types.
 */

export type RunEventListener = (event: RunEvent) => void;

/**
 * Whether a source hears the events published for its runs right now: `live`, or `deaf` while a
 * bus across processes has lost its connection (or cannot prove it still hears) and has not
 * caught up yet. An in-process hub is always `live`.
 */
export type RunEventSourceHealth = 'live' | 'deaf';

/**
 * Where a process's run events can be followed: durable and live events of each run, in the
 * order they were published, plus the live deltas buffered since the run's last checkpoint
 * (so a reload mid-stream shows the text so far at once).
 */
export interface RunEventSource {
  /** Every event published for `runId` from now on, in order. Returns the unsubscribe. */
  subscribe(runId: string, listener: RunEventListener): () => void;
  /** Live deltas since the run's last assistant checkpoint, in `seq` order (empty if none). */
  liveDeltas(runId: string): readonly RunDeltaEvent[];
  /**
   * Whether events published elsewhere reach this source now; absent means always `live`. The
   * SSE handlers send no `: ping` while it is `deaf`, so a client's stall timer is not kept quiet
   * by a process that hears nothing.
   */
  health?(): RunEventSourceHealth;
  /** Hears each change of `health()`; returns the unsubscribe. Absent: it never changes. */
  onHealthChange?(listener: (health: RunEventSourceHealth) => void): () => void;
}
