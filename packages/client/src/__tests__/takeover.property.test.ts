import type { RunOperation } from '@runlight/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cursorOf } from '../connection/cursor';
import { applyEvent } from '../merge/apply-event';
import { mergeSnapshot } from '../merge/merge-snapshot';
import { initialRunState, type RunState } from '../merge/run-state';
import { selectMessage } from '../select/select-message';
import { ServerSim } from './server-sim';

/**
 * SPEC rule 3.5 (issue 21 item 7): worker A streams past its last checkpoint and dies at a
 * random point; worker B takes the run over, writes the checkpointed message first and streams
 * on it; A, maybe only paused, publishes a few more deltas on its old base. Whatever the
 * delivery — drops, duplicates, reorders, stale and fresh snapshots, reconnects at any moment —
 * a page that knows of the takeover shows a prefix of the checkpointed text followed by B's:
 * never A's lost deltas, never one of B's missing. Every page ends with the stored message.
 */
const SEED = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
const RUNS = Number(process.env.FC_RUNS ?? 500);
const T0 = Date.UTC(2026, 11, 2, 10);
const LEASE_MS = 60_000;

const token = fc.string({ minLength: 1, maxLength: 3 }).map((text) => text.replace(/Z/g, 'z'));
const historyArbitrary = fc.record({
  aTokens: fc.array(token, { minLength: 1, maxLength: 12 }),
  aCheckpointEvery: fc.integer({ min: 1, max: 5 }),
  aConsolidateEvery: fc.integer({ min: 1, max: 4 }),
  /** Where A dies, among its actions after the first acquisition. */
  death: fc.nat(),
  bTokens: fc.array(token, { maxLength: 10 }),
  bCheckpointEvery: fc.integer({ min: 1, max: 5 }),
  /** Where A's zombie deltas fall among B's actions (indices, any order). */
  zombies: fc.array(fc.nat(), { maxLength: 4 }),
});

const DELIVERY = [
  'deliver',
  'deliver',
  'deliver',
  'hold',
  'drop',
  'duplicate',
  'reverse',
  'stale-snapshot',
  'fresh-snapshot',
  'reconnect',
] as const;
const scheduleArbitrary = fc.array(
  fc.record({ action: fc.constantFrom(...DELIVERY), pick: fc.nat() }),
  { minLength: 1, maxLength: 40 },
);

type History = typeof historyArbitrary extends fc.Arbitrary<infer T> ? T : never;

/** The server's actions: A's stream cut at its death, the takeover, B's stream with zombies. */
function actions(server: ServerSim, history: History, clock: { tick: number }) {
  const now = () => new Date(T0 + clock.tick * 1_000).toISOString();
  let operation: RunOperation | null = null;
  const a: Array<() => void> = [];
  a.push(() => {
    operation = {
      id: 'a-step-0',
      kind: 'model-request',
      phase: 'started',
      step: 0,
      startedAt: now(),
    };
    server.operation(operation);
  });
  a.push(() => server.delta({ type: 'start-step' }));
  a.push(() => server.delta({ type: 'text-start', id: 't0' }));
  let writes = 0;
  history.aTokens.forEach((text, index) => {
    a.push(() => server.delta({ type: 'text-delta', id: 't0', delta: text }));
    if (index === 0) {
      a.push(() => {
        operation = { ...operation!, phase: 'first-output', firstOutputAt: now() };
        server.operation(operation);
      });
    }
    if ((index + 1) % history.aCheckpointEvery === 0) {
      a.push(() => server.checkpoint(++writes % history.aConsolidateEvery === 0));
    }
  });
  const list: Array<() => void> = [
    () => server.create(),
    () => server.acquire('worker-a', LEASE_MS),
    ...a.slice(0, 1 + (history.death % a.length)),
  ];

  const b: Array<() => void> = [];
  b.push(() => {
    // A's lease ran out long ago.
    clock.tick += 1_000;
    server.takeOver('worker-b', LEASE_MS);
  });
  b.push(() => {
    if (operation !== null) {
      server.operation({ ...operation, phase: 'failed', endedAt: now() } as RunOperation);
    }
  });
  b.push(() => server.checkpoint(true));
  b.push(() => {
    operation = {
      id: 'b-step-0',
      kind: 'model-request',
      phase: 'started',
      step: 0,
      startedAt: now(),
    };
    server.operation(operation);
  });
  b.push(() => server.delta({ type: 'start-step' }));
  b.push(() => server.delta({ type: 'text-start', id: 'tb' }));
  history.bTokens.forEach((text, index) => {
    b.push(() => server.delta({ type: 'text-delta', id: 'tb', delta: text }));
    if ((index + 1) % history.bCheckpointEvery === 0) b.push(() => server.checkpoint());
  });
  b.push(() => server.delta({ type: 'text-end', id: 'tb' }));
  b.push(() => server.delta({ type: 'finish-step' }));
  b.push(() => server.checkpoint());
  b.push(() => server.operation({ ...operation!, phase: 'completed', endedAt: now() }));
  b.push(() => server.terminal({ status: 'completed' }));
  // Zombie deltas only after the takeover (its first action).
  const zombies = [...history.zombies].map((at) => 1 + (at % b.length)).sort((x, y) => y - x);
  for (const at of zombies) {
    b.splice(at, 0, () => server.zombieDelta({ type: 'text-delta', id: 't0', delta: 'Z' }));
  }
  return { list: [...list, ...b], takeoverAt: list.length };
}

const textOf = (state: RunState) =>
  (selectMessage(state)?.parts ?? [])
    .map((part) => (part.type === 'text' ? part.text : ''))
    .join('');

/** What the store does when it (re)connects: reload if needed, then resume from the cursor. */
function reconnect(state: RunState, server: ServerSim): RunState {
  let next = state;
  if (next.run === null || next.phase === 'gap') next = mergeSnapshot(next, server.snapshot());
  let replay = server.resume(cursorOf(next)!);
  if (replay === 'reset') {
    next = mergeSnapshot(next, server.snapshot());
    replay = server.resume(`${next.revision}`);
  }
  if (replay === 'reset') throw new Error('a resume from the reloaded revision cannot reset');
  for (const event of replay) next = applyEvent(next, event);
  return next;
}

describe('takeover property: the checkpointed text, then the new owner’s', () => {
  it(`never glues the dead owner’s lost deltas (seed ${SEED}, ${RUNS} runs; FC_SEED=${SEED} to replay)`, () => {
    fc.assert(
      fc.property(historyArbitrary, scheduleArbitrary, (history, schedule) => {
        const clock = { tick: 0 };
        const server = new ServerSim('run-t', () => new Date(T0 + clock.tick * 1_000));
        const { list, takeoverAt } = actions(server, history, clock);

        let client = initialRunState('run-t');
        let queue = server.published.slice(0, 0);
        let delivered = 0;
        const deliver = (state: RunState, events: typeof queue) =>
          events.reduce((next, event) => applyEvent(next, event), state);
        const snapshots: ReturnType<ServerSim['snapshot']>[] = [];
        /** Texts shown by pages that knew of the takeover (B's fencing token). */
        const shown: string[] = [];
        const record = (state: RunState) => {
          if (state.run !== null && state.run.fencingToken > 1) shown.push(textOf(state));
        };

        list.forEach((act, index) => {
          clock.tick++;
          act();
          queue.push(...server.published.slice(delivered));
          delivered = server.published.length;
          snapshots.push(server.snapshot());
          const { action, pick } = schedule[index % schedule.length]!;
          switch (action) {
            case 'deliver':
              client = deliver(client, queue);
              queue = [];
              break;
            case 'hold':
              break;
            case 'drop':
              queue.shift();
              break;
            case 'duplicate':
              client = deliver(client, [...queue, ...queue]);
              queue = [];
              break;
            case 'reverse':
              client = deliver(client, queue.reverse());
              queue = [];
              break;
            case 'stale-snapshot':
              client = mergeSnapshot(client, snapshots[pick % snapshots.length]!);
              break;
            case 'fresh-snapshot':
              client = mergeSnapshot(client, server.snapshot());
              break;
            case 'reconnect':
              queue = [];
              client = reconnect(client, server);
              break;
          }
          record(client);
          // A page that (re)connects now, after the takeover.
          if (index >= takeoverAt) record(reconnect(initialRunState('run-t'), server));
        });

        const finalText = textOf(reconnect(initialRunState('run-t'), server));
        const truth = server.message.parts
          .map((part) => (part.type === 'text' ? part.text : ''))
          .join('');
        expect(finalText).toBe(truth);
        for (const text of shown) expect(truth.startsWith(text), JSON.stringify(text)).toBe(true);

        client = reconnect(client, server);
        const final = server.snapshot();
        expect(client.phase).toBe('synced');
        expect(client.run).toEqual(final.run);
        expect(client.assistant).toEqual(final.assistant);
        expect(selectMessage(client)?.parts ?? []).toEqual(server.message.parts);
        expect(textOf(client)).toBe(truth);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });
});
