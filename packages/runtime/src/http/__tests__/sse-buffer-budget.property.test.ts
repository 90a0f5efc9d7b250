import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SSE_HIGH_WATER_BYTES, SseBufferBudget } from '../streams/sse-buffer-budget';

const KiB = 1024;

/**
 * A model of the readers of one handlers instance: each tick every open reader is written a
 * burst (`messages` × `messageBytes`, as one task of the event loop writes them), then reads
 * `speed` bytes of its queue (0: paused; `Infinity`: all of it).
 */
function simulate(input: {
  maxBytes: number;
  speeds: number[];
  messages: number;
  messageBytes: number;
  ticks: number;
}) {
  const budget = new SseBufferBudget(input.maxBytes);
  const readers = input.speeds.map((speed) => ({
    speed,
    queue: 0,
    dropped: false,
    account: budget.open({ maxQueuedBytes: Number.MAX_SAFE_INTEGER, idleTimeoutMs: Infinity }),
  }));
  let peak = 0;
  for (let tick = 0; tick < input.ticks; tick++) {
    for (let message = 0; message < input.messages; message++) {
      for (const reader of readers) {
        if (reader.dropped) continue;
        if (reader.account.beforeWrite(reader.queue, input.messageBytes) !== null) {
          reader.dropped = true;
          reader.account.close();
          continue;
        }
        reader.queue += input.messageBytes;
        peak = Math.max(peak, budget.bufferedBytes);
      }
    }
    for (const reader of readers) {
      if (reader.dropped) continue;
      reader.queue -= Math.min(reader.queue, reader.speed);
      reader.account.settle(reader.queue);
    }
  }
  return { readers, peak, budget };
}

describe('SseBufferBudget fair shares (property)', () => {
  it('never drops a reader that keeps up, whatever the others do, and bounds the total', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 256 * KiB, max: 8 * 1024 * KiB }),
        fc.array(
          fc.oneof(fc.constant(0), fc.constant(Number.POSITIVE_INFINITY), fc.nat(512 * KiB)),
          { minLength: 1, maxLength: 12 },
        ),
        fc.integer({ min: 1, max: 16 }),
        fc.integer({ min: 1, max: 32 * KiB }),
        fc.integer({ min: 1, max: 60 }),
        (maxBytes, speeds, messages, messageBytes, ticks) => {
          const share = Math.max(SSE_HIGH_WATER_BYTES, Math.floor(maxBytes / speeds.length));
          const burst = messages * messageBytes;
          const { readers, peak, budget } = simulate({
            maxBytes,
            speeds,
            messages,
            messageBytes,
            ticks,
          });
          for (const reader of readers) {
            // A reader that reads each burst by the next one holds at most one burst; within
            // its share it is never dropped, however many others are paused.
            if (reader.speed >= burst && burst <= share) expect(reader.dropped).toBe(false);
          }
          // Readers within their share hold at most max(maxBytes, readers × floor) together;
          // each other reader at most one message more before it is dropped.
          const bound = Math.max(maxBytes, speeds.length * share) + speeds.length * messageBytes;
          expect(peak).toBeLessThanOrEqual(bound);
          for (const reader of readers) reader.account.close();
          expect(budget.bufferedBytes).toBe(0);
          expect(budget.readers).toBe(0);
        },
      ),
      { numRuns: 300 },
    );
  });
});
