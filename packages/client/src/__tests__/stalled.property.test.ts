import type { RunOperation } from '@runlight/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyEvent } from '../merge/apply-event';
import { mergeSnapshot } from '../merge/merge-snapshot';
import { initialRunState, type RunState } from '../merge/run-state';
import { selectActivity, selectLeaseExpiry } from '../select/select-activity';
import { ServerSim } from './server-sim';

/**
 * SPEC "Activity", stalled: over random histories of an owner that goes silent (and maybe a
 * second owner that takes over), random delivery and a skewed client clock, a client that saw
 * every event, one that saw some and one that only loaded the snapshot show the same activity
 * at any moment — `stalled` exactly when the last lease expired on the server clock, since
 * that expiry, keeping the operation in flight — and the real activity otherwise.
 */
const SEED = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
const T0 = Date.UTC(2026, 11, 2, 10);
const LEASE_MS = 5_000;

describe('stalled property: lease expiry on the server clock', () => {
  it(`derives stalled from the lease alone (seed ${SEED}; FC_SEED=${SEED} to replay)`, () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 6 }), // writes of worker-a before it goes silent
        fc.boolean(), // worker-b takes over after the lease expired
        fc.integer({ min: -60_000, max: 60_000 }), // client clock skew
        fc.integer({ min: -2_000, max: 20_000 }), // when we look, after the last write
        fc.array(fc.boolean(), { maxLength: 20 }), // which events the live client received
        (writes, takeover, skewMs, lookMs, received) => {
          let tick = 0;
          const server = new ServerSim('run-s', () => new Date(T0 + tick * 1_000));
          server.create();
          server.acquire('worker-a', LEASE_MS);
          let operation = null as RunOperation | null;
          for (let index = 0; index < writes; index++) {
            tick++;
            if (operation === null || operation.phase === 'completed') {
              const step: number = operation?.step === undefined ? 0 : operation.step + 1;
              operation = {
                id: `req-step-${step}`,
                kind: 'model-request',
                phase: 'started',
                step,
                startedAt: new Date(T0 + tick * 1_000).toISOString(),
              };
            } else if (operation.phase === 'started') {
              operation = {
                ...operation,
                phase: 'first-output',
                firstOutputAt: new Date(T0 + tick * 1_000).toISOString(),
              };
            } else {
              operation = {
                ...operation,
                phase: 'completed',
                endedAt: new Date(T0 + tick * 1_000).toISOString(),
              };
            }
            server.operation(operation);
          }
          if (takeover) {
            tick += LEASE_MS / 1_000 + 1; // past worker-a's lease
            server.acquire('worker-b', LEASE_MS);
            if (operation && operation.phase !== 'completed') {
              server.operation({
                ...operation,
                phase: 'failed',
                endedAt: new Date(T0 + tick * 1_000).toISOString(),
              });
            }
          }
          const last = server.snapshot();
          const serverNow = Date.parse(last.run.updatedAt) + lookMs;
          const clientNow = serverNow - skewMs;
          const options = { clockOffsetMs: skewMs };

          const loaded = mergeSnapshot(initialRunState('run-s'), last, options);
          let live: RunState = mergeSnapshot(
            initialRunState('run-s'),
            server.snapshots.get(1)!,
            options,
          );
          server.log.forEach((event, index) => {
            if (received[index % Math.max(1, received.length)] !== false)
              live = applyEvent(live, event);
          });
          // A reconnect: reload on a gap, then resume from the cursor (duplicates are no-ops).
          if (live.phase === 'gap') live = mergeSnapshot(live, last, options);
          for (const event of server.log) live = applyEvent(live, event);

          const expiry = last.run.leaseExpiresAt;
          const stalled = expiry !== null && serverNow >= Date.parse(expiry);
          for (const state of [loaded, live]) {
            const activity = selectActivity(state, clientNow);
            expect(activity.kind === 'stalled').toBe(stalled);
            if (stalled) {
              expect(activity.since).toBe(expiry);
              expect(activity.operation).toEqual(last.run.lastOperation ?? undefined);
              expect(activity.interrupted?.kind).not.toBe('stalled');
            }
            expect(selectLeaseExpiry(state)).toBe(
              expiry === null ? null : Date.parse(expiry) - skewMs,
            );
          }
          const { elapsedMs: _a, ...fromSnapshot } = selectActivity(loaded, clientNow);
          const { elapsedMs: _b, ...fromLive } = selectActivity(live, clientNow);
          expect(fromLive).toEqual(fromSnapshot);
        },
      ),
      { seed: SEED, numRuns: 500 },
    );
  });
});
