import type { DurableRunEvent } from '@runlight/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyEvent } from '../merge/apply-event';
import { mergeSnapshot } from '../merge/merge-snapshot';
import { initialRunState, type RunState } from '../merge/run-state';
import { RunLog } from '../run-store-log';
import { selectActivity } from '../select/select-activity';
import { ServerSim } from './server-sim';

/**
 * Time travel (issue 40): whatever a client received — a snapshot at some revision, events
 * duplicated, reordered, dropped and bridged by a later snapshot — the log's state at every
 * revision it offers is what a fresh client shows after loading the server's snapshot there.
 */
const SEED = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
const RUNS = Number(process.env.FC_RUNS ?? 300);

function serverRun(tokens: number, tool: boolean): ServerSim {
  let clock = Date.parse('2026-01-01T00:00:00.000Z');
  const tick = () => {
    clock += 250;
    return new Date(clock);
  };
  const server = new ServerSim('run-1', tick);
  const now = () => tick().toISOString();
  server.create();
  server.acquire();
  const startedAt = now();
  server.operation({ id: 'compact-0', kind: 'compaction', phase: 'started', startedAt });
  server.operation({
    id: 'compact-0',
    kind: 'compaction',
    phase: 'completed',
    startedAt,
    endedAt: now(),
    outcome: 'compacted',
  });
  const request = { id: 'req-step-0', kind: 'model-request', step: 0 } as const;
  const requestAt = now();
  server.operation({ ...request, phase: 'started', startedAt: requestAt });
  server.delta({ type: 'start-step' });
  server.delta({ type: 'text-start', id: 't0' });
  let firstOutputAt = requestAt;
  for (let index = 0; index < tokens; index++) {
    server.delta({ type: 'text-delta', id: 't0', delta: `w${index} ` });
    if (index === 0) {
      firstOutputAt = now();
      server.operation({
        ...request,
        phase: 'first-output',
        startedAt: requestAt,
        firstOutputAt,
      });
    }
    if (index % 2 === 1) server.checkpoint(index % 4 === 3);
  }
  server.delta({ type: 'text-end', id: 't0' });
  if (tool) {
    server.delta({ type: 'tool-input-available', toolCallId: 'c1', toolName: 'rm', input: {} });
    server.checkpoint();
  }
  server.delta({ type: 'finish-step' });
  server.checkpoint();
  server.operation({
    ...request,
    phase: 'completed',
    startedAt: requestAt,
    firstOutputAt,
    endedAt: now(),
  });
  server.terminal({ status: 'completed' });
  return server;
}

const fresh = (server: ServerSim, revision: number): RunState =>
  mergeSnapshot(initialRunState('run-1'), server.snapshots.get(revision)!);

describe('RunLog.stateAt', () => {
  it('equals a fresh client loaded at that revision, whatever the delivery', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.boolean(),
        fc.nat(),
        fc.array(fc.constantFrom('deliver', 'deliver', 'duplicate', 'swap', 'drop', 'snapshot'), {
          minLength: 1,
          maxLength: 40,
        }),
        (tokens, tool, start, schedule) => {
          const server = serverRun(tokens, tool);
          const events = server.log;
          // The client's first snapshot: at some revision of the run.
          const first = 1 + (start % events.length);
          const log = new RunLog(initialRunState('run-1'));
          let state = initialRunState('run-1');
          const receive = (event: DurableRunEvent) => {
            log.event(event);
            state = applyEvent(state, event);
          };
          const load = (revision: number) => {
            const snapshot = server.snapshots.get(revision)!;
            log.snapshot(snapshot, null);
            state = mergeSnapshot(state, snapshot);
          };
          load(first);
          const queue = events.filter((event) => event.revision > first);
          for (const action of schedule) {
            const next = queue.shift();
            if (next === undefined) break;
            if (action === 'deliver') receive(next);
            if (action === 'duplicate') {
              receive(next);
              receive(next);
            }
            if (action === 'swap') {
              const after = queue.shift();
              if (after !== undefined) receive(after);
              receive(next);
            }
            if (action === 'snapshot') load(next.revision);
          }
          for (const event of queue) receive(event);
          // As the store does after a gap, or when the run's end never arrived: reload.
          if (state.revision < events.length) load(events.length);

          const revisions = log.revisions();
          expect(revisions[0]).toBe(first);
          expect(revisions.at(-1)).toBe(events.length);
          for (const revision of revisions) {
            const then = log.stateAt(revision);
            const expected = fresh(server, revision);
            // Every revision the log offers is one it can show exactly.
            expect(then).not.toBeNull();
            expect({
              run: then!.run,
              assistant: then!.assistant,
              revision: then!.revision,
            }).toEqual({
              run: expected.run,
              assistant: expected.assistant,
              revision: expected.revision,
            });
            expect(selectActivity(then!, 0)).toEqual(selectActivity(expected, 0));
          }
          expect(log.stateAt(first - 1)).toBeNull();
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('stays within its bounds and still shows the revisions it holds exactly', () => {
    const server = serverRun(40, true);
    const log = new RunLog(initialRunState('run-1'), { limits: { maxEntries: 5 } });
    log.snapshot(server.snapshots.get(1)!, null);
    for (const event of server.log.slice(1)) log.event(event);
    const { entries, dropped, base } = log.getState();
    expect(entries).toHaveLength(5);
    expect(dropped).toBe(server.log.length - 5);
    expect(base.revision).toBe(server.log.length - 5);
    expect(log.revisions()).toEqual(
      Array.from({ length: 6 }, (_, index) => server.log.length - 5 + index),
    );
    for (const revision of log.revisions()) {
      expect(log.stateAt(revision)?.run).toEqual(server.snapshots.get(revision)!.run);
    }
    expect(log.stateAt(1)).toBeNull();
  });

  it('counts live deltas without keeping them', () => {
    const log = new RunLog(initialRunState('run-1'));
    const live = (baseRevision: number, seq: number): RunState => ({
      ...initialRunState('run-1'),
      live: { baseRevision, seq, chunks: [] },
    });
    log.committed(initialRunState('run-1'), live(3, 2));
    log.committed(live(3, 2), live(3, 5));
    log.committed(live(3, 5), live(7, 1));
    expect(log.getState().deltas).toBe(6);
    expect(log.getState().entries).toEqual([]);
  });
});
