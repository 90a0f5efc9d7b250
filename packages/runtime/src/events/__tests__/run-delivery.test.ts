import type { DurableRunEvent, RunDeltaEvent, RunEvent } from '@runlight/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RunDelivery } from '../run-delivery';

const RUN = 'run-1';

const delta = (runId: string, baseRevision: number, seq: number) =>
  ({
    type: 'run-delta',
    runId,
    baseRevision,
    seq,
    chunk: { type: 'text-delta', id: 'text-1', delta: `t${seq}` },
  }) as RunDeltaEvent;

/** `r3` a durable revision, `d2.1` a delta of base 2, seq 1. */
const label = (event: RunEvent) =>
  event.type === 'run-delta' ? `d${event.baseRevision}.${event.seq}` : `r${event.revision}`;

/** A committed durable event of revision `revision` (an operation: no delta buffer effect). */
const operation = (revision: number) =>
  ({
    type: 'run-operation',
    runId: RUN,
    revision,
    at: '2026-12-04T03:00:00.000Z',
    operation: {
      id: `request-step-${revision}`,
      kind: 'model-request',
      phase: 'started',
      step: revision,
      startedAt: '2026-12-04T03:00:00.000Z',
    },
  }) as unknown as DurableRunEvent;

type Published =
  | { kind: 'pointer'; revision: number; lost: boolean; repeated: boolean }
  | { kind: 'delta'; seq: number };

describe('RunDelivery (the per-run order of every bus across processes)', () => {
  it('delivers every durable revision once, in order, and each delta after what preceded it, however the store reads interleave and pointers are lost or repeated', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ lost: fc.boolean(), repeated: fc.boolean(), deltas: fc.nat(3) }), {
          minLength: 1,
          maxLength: 12,
        }),
        fc.array(fc.nat(5), { minLength: 1, maxLength: 30 }),
        async (script, delays) => {
          // The run's log: revisions 3.. committed in order; each followed by some deltas.
          const published: Published[] = [];
          let seq = 0;
          script.forEach((step, index) => {
            const revision = index + 3;
            published.push({ kind: 'pointer', revision, lost: step.lost, repeated: step.repeated });
            for (let d = 0; d < step.deltas; d++) published.push({ kind: 'delta', seq: ++seq });
          });
          const last = script.length + 2;
          // The final pointer always arrives (a run's stream ends with its terminal pointer).
          const final = published.findLast((item) => item.kind === 'pointer')!;
          if (final.kind === 'pointer') final.lost = false;
          let reads = 0;
          const delivery = new RunDelivery({
            read: async (_runId, after, upTo) => {
              const wait = delays[reads++ % delays.length]!;
              await new Promise((resolve) => setTimeout(resolve, wait));
              const events: DurableRunEvent[] = [];
              for (let revision = after + 1; revision <= Math.min(upTo, last); revision++) {
                events.push(operation(revision));
              }
              return events;
            },
            onError: (error) => {
              throw error;
            },
          });
          const seen: RunEvent[] = [];
          delivery.subscribe(RUN, (event) => seen.push(event));
          delivery.remotePointer({
            runId: RUN,
            revision: 2,
            type: 'run-status',
            change: 'acquired',
          });
          for (const item of published) {
            if (item.kind === 'delta') {
              delivery.remoteDelta(delta(RUN, 0, item.seq));
              continue;
            }
            if (item.lost) continue;
            const pointer = { runId: RUN, revision: item.revision, type: 'run-operation' as const };
            delivery.remotePointer(pointer);
            if (item.repeated) delivery.remotePointer(pointer);
          }
          await delivery.settled();
          await delivery.settled();
          const durable = seen.filter((event) => event.type !== 'run-delta').map(label);
          expect(durable).toEqual(Array.from({ length: last - 1 }, (_, index) => `r${index + 2}`));
          // Deltas in publish order, none lost, none repeated.
          expect(seen.filter((event) => event.type === 'run-delta').map(label)).toEqual(
            Array.from({ length: seq }, (_, index) => `d0.${index + 1}`),
          );
          // A delta never overtakes the durable event published before it: its revision was
          // delivered first (read from the store if its pointer was lost).
          let revision = 0;
          const lastPointerBefore = new Map<number, number>();
          let current = 2;
          for (const item of published) {
            if (item.kind === 'pointer') current = item.revision;
            else lastPointerBefore.set(item.seq, current);
          }
          for (const event of seen) {
            if (event.type !== 'run-delta') revision = event.revision;
            else if (!script[lastPointerBefore.get(event.seq)! - 3]?.lost) {
              expect(revision).toBeGreaterThanOrEqual(lastPointerBefore.get(event.seq)!);
            }
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
