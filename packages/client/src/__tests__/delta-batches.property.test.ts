import type { RunDeltaEvent, UIMessageChunk } from '@runlight/protocol';
import { checkpoint, delta, RUN_ID, snapshot, textMessage } from '@runlight/test-utils';
import type { EventSourceMessage } from 'eventsource-parser';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyStreamBatch } from '../connection/apply-stream-batch';
import type { RunStoreHost } from '../connection/run-store-host';
import { mergeSnapshot } from '../merge/merge-snapshot';
import { initialRunState, type RunState } from '../merge/run-state';
import type { RunStoreContext } from '../run-store-context';
import { selectMessage } from '../select/select-message';

/**
 * Wire coalescing (issue 39): a `run-deltas` message stands for the `run-delta` messages of its
 * deltas. Whatever the split of a stream's deltas into messages, and of the messages into the
 * bursts the connection applies, the client ends in the same state as with one message per
 * delta.
 */
const BASE = 4;

/** A streaming answer on checkpoint `BASE`: parts of text and reasoning, then a tool input. */
const chunksArbitrary = fc
  .array(
    fc.record({
      kind: fc.constantFrom('text', 'reasoning'),
      words: fc.array(fc.string({ minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 6 }),
    }),
    { minLength: 1, maxLength: 4 },
  )
  .map((parts) => {
    const chunks: UIMessageChunk[] = [{ type: 'start-step' }];
    parts.forEach((part, index) => {
      const id = `${part.kind}-${index}`;
      chunks.push({ type: `${part.kind}-start`, id } as UIMessageChunk);
      for (const word of part.words) {
        chunks.push({ type: `${part.kind}-delta`, id, delta: word } as UIMessageChunk);
      }
      chunks.push({ type: `${part.kind}-end`, id } as UIMessageChunk);
    });
    return chunks;
  });

const message = (name: string, seq: number, data: object): EventSourceMessage => ({
  event: name,
  id: `${BASE}:${BASE}:${seq}`,
  data: JSON.stringify(data),
});

/** Cuts `list` before each index in `cuts` (any split into consecutive groups). */
function split<T>(list: readonly T[], cuts: readonly number[]): T[][] {
  const at = [...new Set(cuts.map((cut) => cut % (list.length + 1)))].sort((a, b) => a - b);
  const groups: T[][] = [];
  let from = 0;
  for (const cut of [...at, list.length]) {
    if (cut > from) groups.push(list.slice(from, cut));
    from = Math.max(from, cut);
  }
  return groups;
}

function coalesced(deltas: readonly RunDeltaEvent[], cuts: number[]): EventSourceMessage[] {
  return split(deltas, cuts).map((group) => {
    const first = group[0]!;
    const last = group.at(-1)!;
    if (group.length === 1) return message('run-delta', first.seq, first);
    const batch = {
      type: 'run-deltas',
      runId: RUN_ID,
      baseRevision: BASE,
      seq: first.seq,
      chunks: group.map((d) => d.chunk),
    };
    return message('run-deltas', last.seq, batch);
  });
}

function host(): RunStoreHost & { current: RunState } {
  const start = mergeSnapshot(
    initialRunState(RUN_ID),
    snapshot(BASE, {}, checkpoint(BASE, textMessage(''))),
  );
  const context = { limits: { maxHeldEvents: 10_000, maxRevisionGap: 1_000 } };
  const state = {
    current: start,
    runId: RUN_ID,
    context: context as unknown as RunStoreContext,
    state: () => state.current,
    commit: (next: RunState) => {
      state.current = next;
    },
    fail: () => {},
    load: async () => null,
    isLoading: () => false,
    emitDurable: () => {},
  };
  return state;
}

/** Applies `messages` in bursts cut at `bursts` (as the connection parses them). */
function apply(messages: EventSourceMessage[], bursts: number[]): RunState {
  const target = host();
  let revision = BASE;
  for (const burst of split(messages, bursts)) {
    revision = applyStreamBatch(target, burst, revision).connectionRevision;
  }
  return target.current;
}

describe('run-deltas messages (wire coalescing)', () => {
  it('give the state of the separate run-delta messages, whatever the split', () => {
    const cuts = fc.array(fc.nat(), { maxLength: 12 });
    fc.assert(
      fc.property(chunksArbitrary, cuts, cuts, cuts, (chunks, messageCuts, bursts, alone) => {
        const deltas = chunks.map((chunk, index) => delta(BASE, index + 1, chunk));
        const separate = deltas.map((d) => message('run-delta', d.seq, d));
        const expected = apply(separate, alone);
        const actual = apply(coalesced(deltas, messageCuts), bursts);
        expect(actual.error).toBeNull();
        expect(expected.error).toBeNull();
        expect(selectMessage(actual)).toEqual(selectMessage(expected));
        expect(actual).toEqual(expected);
      }),
    );
  });

  it('refuses a batch of another run or without deltas, as an invalid event', () => {
    const batch = { type: 'run-deltas', runId: RUN_ID, baseRevision: BASE, seq: 1 };
    for (const wrong of [
      { ...batch, chunks: [] },
      { ...batch, runId: 'run-2', chunks: [{ type: 'text-start', id: 't' }] },
    ]) {
      const target = host();
      applyStreamBatch(target, [message('run-deltas', 1, wrong)], BASE);
      expect(target.current.error?.kind).toMatch(/invalid-event|run-mismatch/);
      expect(selectMessage(target.current)).toEqual(selectMessage(host().current));
    }
  });
});
