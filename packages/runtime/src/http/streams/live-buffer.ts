import type { RunDeltaEvent } from '@runlight/protocol';

/**
 * At a catch-up's sync point, whether the delta a client's cursor names (`held`) can be
 * resumed from the live buffer on the latest checkpoint: a reset reason, `drop` (a newer
 * checkpoint holds the client's deltas) or `keep`.
 */
export function resumeHeldDelta(
  buffer: readonly RunDeltaEvent[],
  held: { baseRevision: number; seq: number },
  checkpointRevision: number,
): { reset: string } | 'drop' | 'keep' {
  if (held.baseRevision > checkpointRevision) {
    return { reset: `the cursor names checkpoint ${held.baseRevision}, which this run lacks` };
  }
  if (held.baseRevision < checkpointRevision) return 'drop';
  return buffer.some((d) => d.baseRevision === held.baseRevision && d.seq === held.seq)
    ? 'keep'
    : { reset: 'the live deltas after the cursor are no longer buffered' };
}

/** The buffered deltas strictly between `last` and `seq` on `base`; null when one is gone. */
export function missingDeltas(
  buffer: readonly RunDeltaEvent[],
  base: number,
  last: number,
  seq: number,
): RunDeltaEvent[] | null {
  const missing = buffer.filter((d) => d.baseRevision === base && d.seq > last && d.seq < seq);
  const complete =
    missing.length === seq - last - 1 && missing.every((d, i) => d.seq === last + 1 + i);
  return complete ? missing : null;
}
