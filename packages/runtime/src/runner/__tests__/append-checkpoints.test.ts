import { describe, expect, it } from 'vitest';
import { SNAPSHOT_EVERY_EVENTS } from '../../store/agent-runtime-store';
import { createMemoryDriver } from '../../store/driver/memory-driver';
import { measureLongAnswer } from '../../test-kit/index';

/**
 * Issue 11: an answer's checkpoints grow with the answer, not with its square. Counted by a
 * driver wrapping the memory driver: every snapshot record and event passed to it, as JSON.
 *
 * Everything passed — records and events, lifecycle included — stays within 3× the final
 * message (it was 68–70× at 2,000 tokens): each write passes its one event (an append holds
 * the batch's chunks once) and the whole record only every `SNAPSHOT_EVERY_EVENTS` writes,
 * a record of fixed size (no message, no ever-growing id list).
 */
describe('append-only checkpoints at the default cadence (memory driver)', () => {
  it.each([200, 2_000, 20_000])(
    '%i tokens: all bytes passed to the driver ≤ 3× the message, records of fixed size',
    async (tokens) => {
      const { counts, finalBytes } = await measureLongAnswer(createMemoryDriver(), tokens);
      expect(counts.bytes).toBeLessThanOrEqual(3 * finalBytes);
      expect(counts.snapshots).toBe(Math.floor(counts.writes / SNAPSHOT_EVERY_EVENTS));
      expect(counts.maxRecordBytes).toBeLessThan(1_024);
      // The record an operation mutation writes late in the answer (its completion), if any.
      expect(counts.maxOperationRecordBytes).toBeLessThan(1_024);
    },
  );
});
