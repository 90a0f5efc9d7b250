import { measureLongAnswer } from '@runlight/test-utils';
import { describe, expect, it } from 'vitest';
import { createMemoryDriver } from '../../store/memory-driver';

/**
 * Issue 11: an answer's checkpoints grow with the answer, not with its square. Counted by a
 * driver wrapping the memory driver: every record and event passed to it, as JSON.
 *
 * - What grows with the answer — the assistant events, appends and consolidations — stays
 *   within 3× the final message (it was 68–70× at 2,000 tokens).
 * - Every write also passes the run record (~0.7 KB: run, lease, operation cursor, the
 *   assistant pointer) and its event envelope; that is a fixed cost per write, bounded here at
 *   1 KB, never a copy of the message. At the default cadence (32 chunks ≈ 256 bytes of text
 *   per write) it is what keeps all bytes above 3× the message (see the runtime README).
 */
describe('append-only checkpoints at the default cadence (memory driver)', () => {
  it.each([200, 2_000, 20_000])(
    '%i tokens: assistant bytes ≤ 3× the message, records of fixed size',
    async (tokens) => {
      const { counts, finalBytes } = await measureLongAnswer(createMemoryDriver(), tokens);
      expect(counts.assistantBytes).toBeLessThanOrEqual(3 * finalBytes);
      expect(counts.bytes).toBeLessThanOrEqual(3 * finalBytes + 1_024 * counts.writes);
      expect(counts.maxRecordBytes).toBeLessThan(1_024);
      // The record an operation mutation writes late in the answer (its completion).
      expect(counts.maxOperationRecordBytes).toBeLessThan(1_024);
    },
  );
});
