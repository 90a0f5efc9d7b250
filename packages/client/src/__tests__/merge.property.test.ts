import type { RunOperation, RunSnapshot } from '@runlight/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cursorOf } from '../connection/cursor';
import { applyEvent } from '../merge/apply-event';
import { mergeSnapshot } from '../merge/merge-snapshot';
import { initialRunState, type RunState } from '../merge/run-state';
import { selectActivity } from '../select/select-activity';
import { selectMessage } from '../select/select-message';
import { ServerSim } from './server-sim';

/**
 * The heart of the client (issue 4): whatever the delivery — duplicates, reorders, drops,
 * disconnects, snapshot reloads at stale and fresh revisions — once the client resumes from
 * its cursor, it holds exactly the server's final durable state, shows the same assistant text
 * and the same activity with the same original timestamps. Along the way its text is never a
 * duplicate: always a prefix of the final text.
 */
const SEED = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
const RUNS = Number(process.env.FC_RUNS ?? 1000);

const historyArbitrary = fc.record({
  compaction: fc.boolean(),
  steps: fc.array(fc.array(fc.string({ minLength: 1, maxLength: 3 }), { maxLength: 8 }), {
    minLength: 1,
    maxLength: 3,
  }),
  checkpointEvery: fc.integer({ min: 1, max: 4 }),
  /** Every n-th assistant write consolidates the whole message; the others append. */
  consolidateEvery: fc.integer({ min: 1, max: 5 }),
  toolCall: fc.boolean(),
  terminal: fc.constantFrom('completed', 'failed', 'cancelled'),
  cut: fc.option(fc.nat(), { nil: undefined }),
  clockJumps: fc.array(fc.integer({ min: -3_000, max: 3_000 }), { minLength: 1, maxLength: 8 }),
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

/** Builds the server's actions for one history; each publishes exactly one event. */
function actions(server: ServerSim, history: History, now: () => string): Array<() => void> {
  const list: Array<() => void> = [() => server.create(), () => server.acquire()];
  if (history.compaction) {
    const startedAt = { value: '' };
    list.push(() => {
      startedAt.value = now();
      server.operation({
        id: 'compact-0',
        kind: 'compaction',
        phase: 'started',
        startedAt: startedAt.value,
      });
    });
    list.push(() =>
      server.operation({
        id: 'compact-0',
        kind: 'compaction',
        phase: 'completed',
        startedAt: startedAt.value,
        endedAt: now(),
        outcome: 'not_needed',
      }),
    );
  }
  let sinceCheckpoint = 0;
  let writes = 0;
  const write = () => server.checkpoint(++writes % history.consolidateEvery === 0);
  history.steps.forEach((tokens, step) => {
    let operation: RunOperation;
    const id = `req-step-${step}`;
    list.push(() => {
      operation = { id, kind: 'model-request', phase: 'started', step, startedAt: now() };
      server.operation(operation);
    });
    list.push(() => server.delta({ type: 'start-step' }));
    list.push(() => server.delta({ type: 'text-start', id: `t${step}` }));
    tokens.forEach((token, index) => {
      list.push(() => server.delta({ type: 'text-delta', id: `t${step}`, delta: token }));
      if (index === 0) {
        list.push(() => {
          operation = { ...operation, phase: 'first-output', firstOutputAt: now() };
          server.operation(operation);
        });
      }
      if (++sinceCheckpoint % history.checkpointEvery === 0) list.push(write);
    });
    list.push(() => server.delta({ type: 'text-end', id: `t${step}` }));
    if (history.toolCall) {
      const toolCallId = `call-${step}`;
      // Tool calls and results are structural: each forces a write.
      list.push(() =>
        server.delta({
          type: 'tool-input-available',
          toolCallId,
          toolName: 'search',
          input: { q: step },
        }),
      );
      list.push(write);
      list.push(() =>
        server.delta({ type: 'tool-output-available', toolCallId, output: { hits: [step] } }),
      );
      list.push(write);
    }
    // finish-step is structural: it forces a write.
    list.push(() => server.delta({ type: 'finish-step' }));
    list.push(write);
    list.push(() => server.operation({ ...operation, phase: 'completed', endedAt: now() }));
  });
  const terminal = history.terminal;
  list.push(() =>
    server.terminal(
      terminal === 'failed'
        ? { status: 'failed', failure: { code: 'tool_failure' } }
        : { status: terminal },
    ),
  );
  const length = history.cut === undefined ? list.length : 1 + (history.cut % list.length);
  return list.slice(0, length);
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

describe('merge property: random histories × random delivery schedules', () => {
  it(`ends equal to the server (seed ${SEED}, ${RUNS} runs; FC_SEED=${SEED} to replay)`, () => {
    fc.assert(
      fc.property(historyArbitrary, scheduleArbitrary, (history, schedule) => {
        let tick = 0;
        const clock = () => {
          tick++;
          const jump = history.clockJumps[tick % history.clockJumps.length]!;
          return new Date(Date.UTC(2026, 11, 2, 10) + tick * 1_000 + jump).toISOString();
        };
        const server = new ServerSim('run-p', () => new Date(clock()));
        const steps = actions(server, history, clock);

        let client = initialRunState('run-p');
        let queue = server.published.slice(0, 0);
        let delivered = 0;
        const deliver = (state: RunState, events: typeof queue) =>
          events.reduce((next, event) => applyEvent(next, event), state);
        const snapshots: RunSnapshot[] = [];

        steps.forEach((act, index) => {
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
          if (client.run !== null) expect(client.run.revision).toBe(client.revision);
        });

        // The true text never shrinks, so a duplicate would show as a non-prefix.
        const finalText = server.message.parts
          .map((part) => (part.type === 'text' ? part.text : ''))
          .join('');
        expect(finalText.startsWith(textOf(client))).toBe(true);

        client = reconnect(client, server);
        const final = server.snapshot();
        expect(client.phase).toBe('synced');
        expect(client.revision).toBe(final.revision);
        expect(client.run).toEqual(final.run);
        expect(client.assistant).toEqual(final.assistant);
        expect(textOf(client)).toBe(finalText);
        expect(selectMessage(client)?.parts ?? []).toEqual(server.message.parts);

        const watcher = reconnect(initialRunState('run-p'), server);
        expect(selectActivity(client)).toEqual(selectActivity(watcher));
        const operation = final.run.lastOperation;
        const activity = selectActivity(client);
        if (operation?.phase === 'started') expect(activity.since).toBe(operation.startedAt);
        if (operation?.phase === 'first-output')
          expect(activity.since).toBe(operation.firstOutputAt);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });
});
