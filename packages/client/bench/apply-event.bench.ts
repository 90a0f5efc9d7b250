import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { RunDeltaEvent, RunOperationEvent, RunSnapshot, UIMessage } from '@runlight/protocol';
import { bench, describe } from 'vitest';
import { applyEvent } from '../src/merge/apply-event';
import { mergeSnapshot } from '../src/merge/merge-snapshot';
import { initialRunState, type RunState } from '../src/merge/run-state';
import { selectMessage } from '../src/select/select-message';

/**
 * `applyEvent` throughput for durable events and for text deltas, against a minimal immutable
 * store in the same run (the anchor: a Redux/Zustand-style reducer that copies the parts array
 * and the streaming part per delta), the ratio to a 3,000 tokens/s stream, and the heap a run
 * store holds after a 10,000-delta answer. Run: `npx vitest bench --run --project client`.
 */
const N = 10_000;
const runId = 'run-bench';
const T = '2026-12-02T10:00:00.000Z';

const snapshot: RunSnapshot = {
  revision: 2,
  assistant: null,
  run: {
    id: runId,
    status: 'running',
    owner: 'worker-a',
    fencingToken: 1,
    revision: 2,
    lastOperation: null,
    failure: null,
    leaseExpiresAt: null,
    createdAt: T,
    updatedAt: T,
  },
};
const start = mergeSnapshot(initialRunState(runId), snapshot);

const deltas: RunDeltaEvent[] = [
  { type: 'run-delta', runId, baseRevision: 0, seq: 1, chunk: { type: 'text-start', id: 't' } },
];
for (let seq = 2; seq <= N; seq++) {
  deltas.push({
    type: 'run-delta',
    runId,
    baseRevision: 0,
    seq,
    chunk: { type: 'text-delta', id: 't', delta: 'tok ' },
  });
}
const operation = {
  id: 'req-step-0',
  kind: 'model-request',
  phase: 'started',
  step: 0,
  startedAt: T,
} as const;
const durables: RunOperationEvent[] = [];
for (let index = 0; index < N; index++) {
  durables.push({ type: 'run-operation', runId, revision: 3 + index, at: T, operation });
}

function runlightDeltas(): RunState {
  let state = start;
  for (const event of deltas) state = applyEvent(state, event);
  return state;
}

/** What a UI does per delta: merge it, then read the message to render. */
function runlightDeltasRendered(): RunState {
  let state = start;
  for (const event of deltas) {
    state = applyEvent(state, event);
    selectMessage(state);
  }
  return state;
}

function runlightDurables(): RunState {
  let state = start;
  for (const event of durables) state = applyEvent(state, event);
  return state;
}

/** The anchor: a minimal immutable store (spread state, copy parts, replace the streaming part). */
interface MinimalState {
  revision: number;
  run: RunSnapshot['run'];
  message: UIMessage;
}
const minimalStart: MinimalState = {
  revision: 2,
  run: snapshot.run,
  message: { id: 'm', role: 'assistant', parts: [] },
};
function minimalReduce(
  state: MinimalState,
  event: RunDeltaEvent | RunOperationEvent,
): MinimalState {
  if (event.type === 'run-operation') {
    if (event.revision !== state.revision + 1) return state;
    return {
      ...state,
      revision: event.revision,
      run: { ...state.run, lastOperation: event.operation },
    };
  }
  const parts = state.message.parts.slice();
  if (event.chunk.type === 'text-start') parts.push({ type: 'text', text: '', state: 'streaming' });
  else if (event.chunk.type === 'text-delta') {
    const last = parts[parts.length - 1] as { type: 'text'; text: string };
    parts[parts.length - 1] = { ...last, text: last.text + event.chunk.delta };
  }
  return { ...state, message: { ...state.message, parts } };
}
function minimalDeltas(): MinimalState {
  let state = minimalStart;
  for (const event of deltas) state = minimalReduce(state, event);
  return state;
}
function minimalDurables(): MinimalState {
  let state = minimalStart;
  for (const event of durables) state = minimalReduce(state, event);
  return state;
}

/** Events per second over ~200 ms of whole 10,000-event passes. */
function rate(pass: () => unknown): number {
  let events = 0;
  const began = performance.now();
  while (performance.now() - began < 200) {
    pass();
    events += N;
  }
  return events / ((performance.now() - began) / 1000);
}

/**
 * Best of three interleaved rounds per contender, so warm-up and the garbage one contender
 * leaves behind do not decide the ratio (the machine is shared; single runs are noisy).
 */
function bestRates<K extends string>(contenders: Record<K, () => unknown>): Record<K, number> {
  const best = {} as Record<K, number>;
  for (let round = 0; round < 3; round++) {
    for (const [name, pass] of Object.entries(contenders) as Array<[K, () => unknown]>) {
      best[name] = Math.max(best[name] ?? 0, rate(pass));
    }
  }
  return best;
}

function heapAfterAnswer(): number {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  const before = process.memoryUsage().heapUsed;
  const state = runlightDeltas();
  const message = selectMessage(state);
  gc();
  const after = process.memoryUsage().heapUsed;
  if (message === null) throw new Error('no message');
  return after - before;
}

const figures = {
  ...bestRates({
    deltas: runlightDeltas,
    deltasBaseline: minimalDeltas,
    deltasRendered: runlightDeltasRendered,
    durables: runlightDurables,
    durablesBaseline: minimalDurables,
  }),
  heap: heapAfterAnswer(),
};
const format = (value: number) => `${(value / 1e6).toFixed(2)} M/s`;
console.info(
  [
    'applyEvent figures (same run):',
    `  text deltas:    ${format(figures.deltas)}  (minimal store ${format(figures.deltasBaseline)}, ×${(figures.deltas / figures.deltasBaseline).toFixed(1)}; ${Math.round(figures.deltas / 3000).toLocaleString('en')}× a 3,000 tokens/s stream)`,
    `  text deltas + selectMessage after each: ${format(figures.deltasRendered)}`,
    `  durable events: ${format(figures.durables)}  (minimal store ${format(figures.durablesBaseline)}, ×${(figures.durables / figures.durablesBaseline).toFixed(1)})`,
    `  heap of a run store after a ${N.toLocaleString('en')}-delta answer (state + materialised message): ${(figures.heap / 1024).toFixed(0)} KiB`,
  ].join('\n'),
);

describe(`${N.toLocaleString('en')} text deltas`, () => {
  bench('runlight applyEvent', () => {
    runlightDeltas();
  });
  bench('baseline: minimal immutable store', () => {
    minimalDeltas();
  });
  bench('runlight applyEvent + selectMessage after each', () => {
    runlightDeltasRendered();
  });
});

describe(`${N.toLocaleString('en')} durable events`, () => {
  bench('runlight applyEvent', () => {
    runlightDurables();
  });
  bench('baseline: minimal immutable store', () => {
    minimalDurables();
  });
});

/** Every durable event after a missing first one: all held, then drained by the gap's bridge. */
function runlightHeldThenDrained(): RunState {
  let state = start;
  for (let index = 1; index < N; index++) state = applyEvent(state, durables[index]!);
  return applyEvent(state, durables[0]!);
}

// 20,000 out-of-order events once froze a page for 3.9 s (a copy of the held list per event);
// holding them is O(log n) per event now — compare with applying them in order.
describe(`${N.toLocaleString('en')} durable events, all held after a missing one`, () => {
  bench('runlight applyEvent: held, then drained', () => {
    runlightHeldThenDrained();
  });
  bench('runlight applyEvent: in order (baseline)', () => {
    runlightDurables();
  });
});
