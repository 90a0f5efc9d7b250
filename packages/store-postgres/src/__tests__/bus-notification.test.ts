import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type BusMessage,
  decodeNotification,
  encodeNotifications,
  loneNotificationBytes,
} from '../bus-notification';

const message: fc.Arbitrary<BusMessage> = fc.oneof(
  fc.record({
    kind: fc.constant('durable' as const),
    runId: fc.string({ minLength: 1, maxLength: 40 }),
    revision: fc.nat(),
    type: fc.constantFrom('run-operation' as const, 'assistant-checkpoint' as const),
  }),
  fc.record({
    kind: fc.constant('delta' as const),
    event: fc.record({
      type: fc.constant('run-delta' as const),
      runId: fc.string({ minLength: 1, maxLength: 40 }),
      baseRevision: fc.nat(),
      seq: fc.integer({ min: 1 }),
      // Multi-byte text: the limit is in bytes, not characters.
      chunk: fc.record({
        type: fc.constant('text-delta' as const),
        id: fc.constant('t'),
        delta: fc.string({ unit: 'grapheme', maxLength: 300 }),
      }),
    }),
  }),
  fc.record({
    kind: fc.constant('delta-row' as const),
    runId: fc.string({ minLength: 1, maxLength: 40 }),
    id: fc.nat().map(String),
  }),
);

describe('encodeNotifications', () => {
  it('packs messages in order into payloads within the byte limit, which decode back', () => {
    fc.assert(
      fc.property(
        fc.array(message, { maxLength: 60 }),
        fc.integer({ min: 1_500, max: 8_000 }),
        (drawn, maxBytes) => {
          // The bus moves a message too large for a payload into a row before it packs.
          const messages = drawn.filter(
            (candidate) => loneNotificationBytes('instance-a', candidate) <= maxBytes,
          );
          const payloads = encodeNotifications('instance-a', messages, maxBytes);
          const decoded = payloads.flatMap((payload) => {
            expect(Buffer.byteLength(payload)).toBeLessThanOrEqual(maxBytes);
            const result = decodeNotification(payload);
            if (!result.ok) throw result.error;
            expect(result.instanceId).toBe('instance-a');
            return result.messages;
          });
          expect(decoded).toEqual(messages);
          // As few payloads as the limit allows: no two neighbours would fit in one (`+ 1`: a comma).
          const sizes = payloads.map((payload) => Buffer.byteLength(payload));
          const envelope = loneNotificationBytes('instance-a', { kind: 'skip' }) - 15;
          for (let i = 1; i < sizes.length; i++) {
            expect(sizes[i - 1]! + 1 + sizes[i]! - envelope).toBeGreaterThan(maxBytes);
          }
        },
      ),
      { seed: 20_261_202, numRuns: 200 },
    );
  });

  it('refuses payloads of an unknown shape instead of throwing', () => {
    expect(decodeNotification('nope')).toMatchObject({ ok: false });
    expect(decodeNotification('{"instanceId":"a","messages":[{"kind":"gone"}]}')).toMatchObject({
      ok: false,
    });
  });
});
