import type { AgentRun, DurableRunEvent } from '@runlight/protocol';
import { assistantMessage, manualClock, modelRequest } from '@runlight/test-utils';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RunlightError } from '../../errors/runlight-error';
import { withLatency } from '../../testing/with-latency';
import { createAgentRuntimeStore } from '../agent-runtime-store';
import { createMemoryDriver } from '../driver/memory-driver';
import { evolveRun } from '../log/evolve-run';
import { type StoredRun, StoredRunSchema } from '../log/stored-run';

type Owner = 'owner-a' | 'owner-b';
type Command =
  | { kind: 'acquire'; owner: Owner }
  | { kind: 'operation'; owner: Owner }
  | { kind: 'checkpoint'; owner: Owner }
  | { kind: 'terminal'; owner: Owner; status: 'completed' | 'cancelled' }
  | { kind: 'advance-clock'; ms: number };

const owner = fc.constantFrom<Owner>('owner-a', 'owner-b');
const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ kind: fc.constant('acquire' as const), owner }),
  fc.record({ kind: fc.constant('operation' as const), owner }),
  fc.record({ kind: fc.constant('operation' as const), owner }),
  fc.record({ kind: fc.constant('checkpoint' as const), owner }),
  fc.record({
    kind: fc.constant('terminal' as const),
    owner,
    status: fc.constantFrom<'completed' | 'cancelled'>('completed', 'cancelled'),
  }),
  fc.record({
    kind: fc.constant('advance-clock' as const),
    ms: fc.integer({ min: 0, max: 2_000 }),
  }),
);

/** Each owner's belief: the run as its last successful write returned it. */
interface Belief {
  run: AgentRun | null;
  nextStep: number;
}

const PHASES = ['started', 'first-output', 'completed'] as const;

describe('store invariants under two owners and a store answering on later ticks', () => {
  it('holds: +1 revision and one event per success, no lost or duplicated event, every record parses', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(command, { minLength: 1, maxLength: 4 }), {
          minLength: 1,
          maxLength: 12,
        }),
        fc.integer({ min: 1, max: 1_000_000 }),
        async (rounds, seed) => {
          const clock = manualClock();
          const driver = createMemoryDriver();
          const store = createAgentRuntimeStore(withLatency(driver, { minMs: 0, maxMs: 1, seed }), {
            now: clock.now,
          });
          const runId = 'property-run';
          await store.createRun({ runId });
          let successes = 1;
          const beliefs: Record<Owner, Belief> = {
            'owner-a': { run: null, nextStep: 0 },
            'owner-b': { run: null, nextStep: 0 },
          };

          const execute = async (next: Command): Promise<void> => {
            if (next.kind === 'advance-clock') {
              clock.advance(next.ms);
              return;
            }
            const belief = beliefs[next.owner];
            const guard = belief.run && {
              owner: next.owner,
              fencingToken: belief.run.fencingToken,
              expectedRevision: belief.run.revision,
            };
            let result: AgentRun;
            if (next.kind === 'acquire') {
              result = await store.acquireRun(runId, { owner: next.owner, leaseMs: 1_000 });
            } else if (!guard || !belief.run) {
              return;
            } else if (next.kind === 'checkpoint') {
              result = await store.saveAssistantCheckpoint(
                runId,
                guard,
                assistantMessage(`${successes}`),
              );
            } else if (next.kind === 'terminal') {
              result = await store.commitTerminal(runId, guard, { status: next.status });
              if (result.revision === belief.run.revision) return; // a recognised duplicate
            } else {
              const current = belief.run.lastOperation;
              const index = current ? PHASES.indexOf(current.phase as (typeof PHASES)[number]) : 2;
              const phase = index === 2 ? 'started' : PHASES[index + 1]!;
              const step = phase === 'started' ? belief.nextStep : current!.step!;
              const operation = modelRequest(
                step,
                phase,
                `model-request:step-${step}:${next.owner}`,
              );
              if (phase === 'completed' && current?.firstOutputAt)
                operation.firstOutputAt = current.firstOutputAt;
              result = await store.recordRunOperation(runId, guard, operation);
              if (phase === 'started') belief.nextStep = step + 1;
            }
            successes++;
            belief.run = result;
          };

          for (const round of rounds) {
            // Commands of one round run concurrently: both owners race on the same run.
            await Promise.all(
              round.map((next) =>
                execute(next).catch((error: unknown) => {
                  if (!RunlightError.isRunlightError(error)) throw error;
                }),
              ),
            );
          }

          const snapshot = await store.getSnapshot(runId);
          const events: DurableRunEvent[] = await store.readEvents(runId);
          expect(snapshot.revision).toBe(successes);
          expect(events.map((event) => event.revision)).toEqual(
            Array.from({ length: successes }, (_, i) => i + 1),
          );
          // The stored snapshot (written every SNAPSHOT_EVERY_EVENTS; null before) parses, and
          // the whole log folds into the run the store shows.
          const stored = await driver.load(runId);
          expect(stored === null || StoredRunSchema.safeParse(stored).success).toBe(true);
          expect(events.reduce<StoredRun | null>(evolveRun, null)?.run).toEqual(snapshot.run);
          // Replaying the events reproduces the durable state the snapshot shows.
          const lastOperation = events.filter((e) => e.type === 'run-operation').at(-1);
          expect(snapshot.run.lastOperation).toEqual(lastOperation?.operation ?? null);
          const lastStatus = events.filter((e) => e.type === 'run-status').at(-1)!;
          expect(snapshot.run).toMatchObject({
            status: lastStatus.status,
            owner: lastStatus.owner,
            fencingToken: lastStatus.fencingToken,
          });
          const lastCheckpoint = events.filter((e) => e.type === 'assistant-checkpoint').at(-1);
          expect(snapshot.assistant).toEqual(lastCheckpoint?.checkpoint ?? null);
        },
      ),
      { numRuns: 150 },
    );
  });
});
