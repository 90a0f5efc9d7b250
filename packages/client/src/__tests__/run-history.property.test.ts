import type { DurableRunEvent, RunOperationEvent, RunOperationsPage } from '@runlight/protocol';
import { modelRequestOperation, operationEvent, RUN_ID, statusEvent } from '@runlight/test-utils';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  initialHistoryState,
  mergeHistoryPage,
  mergeLiveEvent,
  nextHistoryAfter,
  type RunHistoryState,
} from '../history/run-history-state';

/**
 * SPEC.md H1–H4: whatever interleaving of history pages (any `after`, any `limit`, read at any
 * moment, answered late), live events (from a connection that resumes at the store's revision),
 * store resets (a snapshot jump that skips live events) and page reloads (all client state
 * lost), once the client has read what `nextHistoryAfter` asks for, it holds the server's
 * operation events exactly once, in revision order — and at every moment what it holds is a
 * sorted, duplicate-free subset of them.
 */
const SEED = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
const RUNS = Number(process.env.FC_RUNS ?? 500);

/** The server's durable log: `kinds[i]` is whether revision i + 1 is an operation event. */
function serverLog(kinds: boolean[]): DurableRunEvent[] {
  return kinds.map((isOperation, index) =>
    isOperation
      ? operationEvent(index + 1, modelRequestOperation('started', { step: index }))
      : statusEvent(index + 1, 'running'),
  );
}

/** The server's answer to `GET …/operations?after&limit` when it holds `log[0..served)`. */
function readPage(
  log: DurableRunEvent[],
  served: number,
  after: number,
  limit: number,
): RunOperationsPage {
  const operations: RunOperationEvent[] = [];
  let nextAfter: number | null = null;
  let revision = after;
  for (const event of log.slice(after, served)) {
    if (event.type !== 'run-operation') {
      revision = Math.max(revision, event.revision);
      continue;
    }
    if (operations.length === limit) {
      nextAfter = operations.at(-1)!.revision;
      revision = nextAfter;
      break;
    }
    operations.push(event);
    revision = event.revision;
  }
  return { runId: RUN_ID, operations, nextAfter, revision: Math.max(revision, after) };
}

type Action =
  | { kind: 'server-writes' }
  | { kind: 'live' }
  | { kind: 'reset' }
  | { kind: 'reload' }
  | { kind: 'request-page'; limit: number }
  | { kind: 'answer-page'; index: number }
  | { kind: 'duplicate-live'; back: number };

const actionArbitrary: fc.Arbitrary<Action> = fc.oneof(
  fc.constant<Action>({ kind: 'server-writes' }),
  fc.constant<Action>({ kind: 'live' }),
  fc.constant<Action>({ kind: 'reset' }),
  fc.constant<Action>({ kind: 'reload' }),
  fc.integer({ min: 1, max: 4 }).map<Action>((limit) => ({ kind: 'request-page', limit })),
  fc.nat(5).map<Action>((index) => ({ kind: 'answer-page', index })),
  fc.nat(4).map<Action>((back) => ({ kind: 'duplicate-live', back })),
);

function assertSound(state: RunHistoryState, log: DurableRunEvent[]): void {
  const revisions = state.operations.map((event) => event.revision);
  for (let index = 1; index < revisions.length; index++) {
    expect(revisions[index]!).toBeGreaterThan(revisions[index - 1]!);
  }
  for (const event of state.operations) expect(event).toEqual(log[event.revision - 1]);
}

describe('history merge: any interleaving yields the operation history exactly once, in order', () => {
  it(`holds (seed ${SEED}, ${RUNS} runs; replay with FC_SEED=${SEED})`, () => {
    fc.assert(
      fc.property(
        fc.array(fc.boolean(), { minLength: 1, maxLength: 30 }),
        fc.array(actionArbitrary, { maxLength: 60 }),
        fc.integer({ min: 1, max: 5 }),
        (kinds, actions, settleLimit) => {
          const log = serverLog(kinds);
          let served = 1; // revisions the server has written so far
          let history = initialHistoryState(RUN_ID);
          let storeRevision = 0; // the store's revision; its connection resumes after it
          let inFlight: { after: number; page: RunOperationsPage }[] = [];
          for (const action of actions) {
            switch (action.kind) {
              case 'server-writes':
                served = Math.min(log.length, served + 1);
                break;
              case 'live':
                // The connection delivers the next durable event after the store's revision.
                if (storeRevision < served) {
                  const event = log[storeRevision]!;
                  storeRevision++;
                  history = mergeLiveEvent(history, event);
                }
                break;
              case 'duplicate-live': {
                const event = log[storeRevision - 1 - action.back];
                if (event !== undefined) {
                  const before = history;
                  history = mergeLiveEvent(history, event);
                  if (event.revision <= storeRevision && before.covered !== history.covered) {
                    // A duplicate may only add coverage the history lacked, never an operation twice.
                    expect(history.operations.length).toBeLessThanOrEqual(
                      before.operations.length + 1,
                    );
                  }
                }
                break;
              }
              case 'reset':
                // A snapshot at the server's revision: the events in between never arrive live.
                storeRevision = served;
                break;
              case 'reload':
                history = initialHistoryState(RUN_ID);
                storeRevision = served;
                inFlight = [];
                break;
              case 'request-page': {
                const after = nextHistoryAfter(history, storeRevision) ?? storeRevision;
                inFlight.push({ after, page: readPage(log, served, after, action.limit) });
                break;
              }
              case 'answer-page': {
                const [answered] = inFlight.splice(action.index % Math.max(1, inFlight.length), 1);
                if (answered) history = mergeHistoryPage(history, answered.page, answered.after);
                break;
              }
            }
            assertSound(history, log);
          }
          // Settle: late pages arrive, the connection catches up, the client reads what it lacks.
          for (const { after, page } of inFlight) history = mergeHistoryPage(history, page, after);
          while (storeRevision < served) history = mergeLiveEvent(history, log[storeRevision++]!);
          for (let guard = 0; guard < 100; guard++) {
            const after = nextHistoryAfter(history, storeRevision);
            if (after === null) break;
            history = mergeHistoryPage(history, readPage(log, served, after, settleLimit), after);
          }
          expect(nextHistoryAfter(history, storeRevision)).toBeNull();
          const expected = log.slice(0, served).filter((event) => event.type === 'run-operation');
          expect(history.operations).toEqual(expected);
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
  });
});
