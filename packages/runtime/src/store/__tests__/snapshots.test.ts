import type { AgentRun, RunOperation } from '@runlight/protocol';
import { assistantMessage, manualClock } from '@runlight/test-utils';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RunlightError } from '../../errors/runlight-error';
import { StoreRecordError } from '../../errors/store-record-error';
import { type AgentRuntimeStore, createAgentRuntimeStore } from '../agent-runtime-store';
import type { AgentRuntimeDriver } from '../driver/driver';
import { createMemoryDriver } from '../driver/memory-driver';
import { type DriverRunEvent, wholeStoredEvent } from '../log/packed-event';

/**
 * A driver keeps the record only as a snapshot now and then; every other load folds the events
 * written since. These tests pin that a folded record decides exactly like the record the
 * reducer returned: same outcomes, same runs, same events, whatever the snapshot cadence and
 * whichever store instance (with or without its write cache) performs the next mutation.
 */

type Owner = 'a' | 'b';
type Command =
  | { kind: 'acquire' | 'takeover'; owner: Owner; leaseMs: number }
  | { kind: 'operation' | 'append' | 'checkpoint' | 'renew' | 'release'; owner: Owner }
  | { kind: 'terminal'; owner: Owner; status: 'completed' | 'cancelled' }
  | { kind: 'advance-clock'; ms: number };

const owner = fc.constantFrom<Owner>('a', 'b');
const leaseMs = fc.constantFrom(500, 1_000, 3_000);
const command: fc.Arbitrary<Command> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('acquire' as const), owner, leaseMs }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('takeover' as const), owner, leaseMs }), weight: 1 },
  {
    arbitrary: fc.record({
      kind: fc.constantFrom('operation' as const, 'append' as const),
      owner,
    }),
    weight: 8,
  },
  {
    arbitrary: fc.record({
      kind: fc.constantFrom('checkpoint' as const, 'renew' as const, 'release' as const),
      owner,
    }),
    weight: 2,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('terminal' as const),
      owner,
      status: fc.constantFrom<'completed' | 'cancelled'>('completed', 'cancelled'),
    }),
    weight: 1,
  },
  { arbitrary: fc.record({ kind: fc.constant('advance-clock' as const), ms: leaseMs }), weight: 2 },
);

const PHASES = ['started', 'first-output', 'completed'] as const;

/**
 * Plays `commands` against the run through `storeFor(i)` (the store that performs command i)
 * and returns every outcome — the run a success returned, or the error's name and code.
 */
async function play(
  commands: readonly Command[],
  clock: ReturnType<typeof manualClock>,
  storeFor: (index: number) => AgentRuntimeStore,
) {
  const runId = 'folded-run';
  const outcomes: unknown[] = [await storeFor(-1).createRun({ runId })];
  const beliefs: Record<Owner, { run: AgentRun | null; nextStep: number }> = {
    a: { run: null, nextStep: 0 },
    b: { run: null, nextStep: 0 },
  };
  let appended = 0;
  for (const [index, next] of commands.entries()) {
    if (next.kind === 'advance-clock') {
      clock.advance(next.ms);
      continue;
    }
    const store = storeFor(index);
    const belief = beliefs[next.owner];
    const run = belief.run;
    const guard = run && {
      owner: next.owner,
      fencingToken: run.fencingToken,
      expectedRevision: run.revision,
    };
    try {
      let result: AgentRun;
      if (next.kind === 'acquire') {
        result = await store.acquireRun(runId, { owner: next.owner, leaseMs: next.leaseMs });
      } else if (next.kind === 'takeover') {
        const taken = await store.takeOverRun(runId, { owner: next.owner, leaseMs: next.leaseMs });
        outcomes.push({ takeovers: taken.takeovers });
        result = taken.run;
      } else if (!guard || !run) {
        continue;
      } else if (next.kind === 'append') {
        const snapshot = await store.getSnapshot(runId);
        result = await store.appendAssistant(runId, guard, {
          messageId: snapshot.assistant?.message.id ?? 'message-1',
          baseRevision: snapshot.assistant?.revision ?? 0,
          chunks: [{ type: 'data-note', data: `piece ${++appended}` }],
        });
      } else if (next.kind === 'checkpoint') {
        result = await store.saveAssistantCheckpoint(runId, guard, assistantMessage('whole'));
      } else if (next.kind === 'renew') {
        result = await store.renewLease(runId, guard);
      } else if (next.kind === 'release') {
        result = await store.releaseLease(runId, guard);
      } else if (next.kind === 'terminal') {
        result = await store.commitTerminal(runId, guard, { status: next.status });
      } else {
        const current = run.lastOperation;
        const at = current ? PHASES.indexOf(current.phase as (typeof PHASES)[number]) : 2;
        const phase = at === 2 || at === -1 ? 'started' : PHASES[at + 1]!;
        const step = phase === 'started' ? belief.nextStep : current!.step!;
        const operation: RunOperation = {
          ...(phase === 'started' ? {} : current),
          id: `model-request:step-${step}:${next.owner}`,
          kind: 'model-request',
          phase,
          step,
          startedAt: phase === 'started' ? clock.iso() : current!.startedAt,
        };
        if (phase === 'first-output') operation.firstOutputAt = clock.iso();
        if (phase === 'completed') operation.endedAt = clock.iso();
        result = await store.recordRunOperation(runId, guard, operation);
        if (phase === 'started') belief.nextStep = step + 1;
      }
      belief.run = result;
      outcomes.push(result);
    } catch (error) {
      if (!RunlightError.isRunlightError(error)) throw error;
      outcomes.push({ error: error.name, code: (error as { code?: unknown }).code });
    }
  }
  const reader = storeFor(commands.length);
  return {
    outcomes,
    snapshot: await reader.getSnapshot(runId),
    events: await reader.readEvents(runId),
    expired: await reader.findExpiredRuns({ now: clock.now() }),
  };
}

describe('records folded from snapshots and events', () => {
  it('decide exactly like the records the reducer returned, at any snapshot cadence and through any store', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(command, { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.constantFrom('writer', 'fresh', 'other'), { minLength: 61, maxLength: 61 }),
        async (commands, every, choices) => {
          // Reference: one store, one clock, records straight from the reducer (its cache).
          const referenceClock = manualClock();
          const reference = createAgentRuntimeStore(createMemoryDriver(), {
            now: referenceClock.now,
            snapshotEveryEvents: 1_000_000,
          });
          const expected = await play(commands, referenceClock, () => reference);

          const clock = manualClock();
          const driver = createMemoryDriver();
          const options = { now: clock.now, snapshotEveryEvents: every };
          const writer = createAgentRuntimeStore(driver, options);
          const other = createAgentRuntimeStore(driver, options);
          const actual = await play(commands, clock, (index) => {
            const choice = choices[index + 1] ?? 'fresh';
            // A fresh store has no cache: it loads the snapshot and folds the events after it.
            if (choice === 'fresh') return createAgentRuntimeStore(driver, options);
            return choice === 'writer' ? writer : other;
          });
          expect(actual).toEqual(expected);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('refuses a log whose events do not follow the snapshot, and writes nothing', async () => {
    const memory = createMemoryDriver();
    const store = createAgentRuntimeStore(memory);
    await store.createRun({ runId: 'gap' });
    await store.acquireRun('gap', { owner: 'a', leaseMs: 1_000 });
    // A driver whose log skips a revision: the acquisition reads as revision 3, after 1.
    const lossy: AgentRuntimeDriver = {
      ...memory,
      async readEvents(runId, after) {
        const events = (await memory.readEvents(runId, after)) as DriverRunEvent[];
        return events
          .map(wholeStoredEvent)
          .map((event) => (event.revision === 2 ? { ...event, revision: 3 } : event));
      },
    };
    const reader = createAgentRuntimeStore(lossy);
    const error = await reader.getRun('gap').catch((caught: unknown) => caught);
    expect(StoreRecordError.isInstance(error)).toBe(true);
    expect(String(error)).toMatch(/revision 3/);
    expect((await store.readEvents('gap')).map((event) => event.revision)).toEqual([1, 2]);
  });

  it('refuses a stored event that names another run', async () => {
    const memory = createMemoryDriver();
    const store = createAgentRuntimeStore(memory);
    await store.createRun({ runId: 'mine' });
    const foreign: AgentRuntimeDriver = {
      ...memory,
      async readEvents(runId, after) {
        const events = (await memory.readEvents(runId, after)) as object[];
        return events.map((event) => ({ ...event, runId: 'theirs' }));
      },
    };
    const error = await createAgentRuntimeStore(foreign)
      .readEvents('mine')
      .catch((caught: unknown) => caught);
    expect(StoreRecordError.isInstance(error)).toBe(true);
  });

  it('refuses a snapshot cadence that is not a positive integer', () => {
    for (const snapshotEveryEvents of [0, -1, 1.5, Number.NaN]) {
      expect(() => createAgentRuntimeStore(createMemoryDriver(), { snapshotEveryEvents })).toThrow(
        TypeError,
      );
    }
  });
});
