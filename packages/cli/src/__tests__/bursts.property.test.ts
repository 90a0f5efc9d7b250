import {
  applyEvent,
  initialRunState,
  mergeSnapshot,
  type RunState,
  type RunStore,
} from '@runlight/client';
import type { DurableRunEvent } from '@runlight/protocol';
import {
  createAgentRuntime,
  createAgentRuntimeStore,
  createMemoryDriver,
  RunEventHub,
} from '@runlight/runtime';
import { scriptedModel } from '@runlight/runtime/testing';
import { isStepCount, jsonSchema, tool } from 'ai';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { followRun } from '../tail/follow-run';
import { PhaseTracker } from '../tail/phase-tracker';
import type { TailRecord } from '../tail/tail-records';
import { user } from './harness';

/**
 * However the network groups a run's events into reads — each alone, a request's start, first
 * output and end in one, the whole run in one — `tail` prints the same phases: each durable
 * event is merged as it arrives, never only the burst's last state.
 */

const lookup = tool({
  description: 'Looks something up',
  inputSchema: jsonSchema<{ q: string }>({ type: 'object', properties: { q: { type: 'string' } } }),
  execute: async () => ({ found: true }),
});

/** A finished run's durable events: a retried request, a tool step, a second request. */
async function recordedRun(): Promise<DurableRunEvent[]> {
  const store = createAgentRuntimeStore(createMemoryDriver());
  const runtime = createAgentRuntime({ store, events: new RunEventHub(), onLog: () => {} });
  await runtime.startRun({
    runId: 'run-bursts',
    model: scriptedModel([
      { error: { at: 'request', retryAfterMs: 20, status: 503 } },
      {
        firstTokenMs: 5,
        text: 'Looking. ',
        toolCalls: [{ toolName: 'lookup', input: { q: 'x' } }],
      },
      { firstTokenMs: 5, tokenMs: 1, text: 'Found it.' },
    ]),
    messages: user('Find x'),
    tools: { lookup },
    stopWhen: isStepCount(3),
  }).done;
  return store.readEvents('run-bursts');
}

/** The state a page holds after the run's `created` event (what its first snapshot says). */
function createdState(created: DurableRunEvent): RunState {
  if (created.type !== 'run-status') throw new Error('the first event is not the creation');
  const run = {
    id: created.runId,
    status: created.status,
    owner: null,
    fencingToken: 0,
    revision: created.revision,
    lastOperation: null,
    failure: null,
    leaseExpiresAt: null,
    createdAt: created.at,
    updatedAt: created.at,
  };
  return mergeSnapshot(initialRunState(created.runId), {
    run,
    assistant: null,
    revision: created.revision,
  });
}

/** A store that receives `bursts` as the connection would: events one by one, one commit each. */
function burstStore(initial: RunState) {
  let state = initial;
  const durable = new Set<(event: DurableRunEvent) => void>();
  const listeners = new Set<() => void>();
  const store = {
    getState: () => state,
    subscribe: (listener: () => void) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    observeDurableEvents: (listener: (event: DurableRunEvent) => void) => {
      durable.add(listener);
      return () => durable.delete(listener);
    },
  };
  const deliver = (burst: readonly DurableRunEvent[]) => {
    let next = state;
    for (const event of burst) {
      for (const listener of durable) listener(event);
      next = applyEvent(next, event);
    }
    state = next;
    for (const listener of listeners) listener();
  };
  return { store: store as unknown as RunStore, deliver };
}

/** What tail prints of the run when its events arrive in `bursts`. */
function printed(initial: RunState, bursts: readonly DurableRunEvent[][]): TailRecord[] {
  const { store, deliver } = burstStore(initial);
  const now = Date.parse(initial.run!.createdAt);
  const tracker = new PhaseTracker('run-bursts', { recovers: false, now: () => now });
  const records: TailRecord[] = [];
  const stop = followRun(store, (steps) => {
    for (const step of steps) {
      records.push(
        ...(step.type === 'event' ? tracker.observeEvent(step.event) : tracker.observe(step.state)),
      );
    }
  });
  for (const burst of bursts) deliver(burst);
  stop();
  return records;
}

describe('tail prints every phase, however the events are grouped into reads', () => {
  it('the same records for every grouping of the same events', async () => {
    const [created, ...events] = await recordedRun();
    const initial = createdState(created!);
    const oneByOne = printed(
      initial,
      events.map((event) => [event]),
    );
    const phases = oneByOne.map((record) =>
      record.type === 'phase' ? record.activity : record.type,
    );
    expect(phases).toEqual(
      expect.arrayContaining(['waiting-for-model', 'streaming', 'working', 'completed']),
    );
    expect(oneByOne.some((record) => record.type === 'phase' && record.retryAt !== undefined)).toBe(
      true,
    );
    fc.assert(
      fc.property(
        fc.array(fc.boolean(), { minLength: events.length, maxLength: events.length }),
        (cuts) => {
          const bursts: DurableRunEvent[][] = [[]];
          events.forEach((event, index) => {
            if (cuts[index] && bursts.at(-1)!.length > 0) bursts.push([]);
            bursts.at(-1)!.push(event);
          });
          expect(printed(initial, bursts)).toEqual(oneByOne);
        },
      ),
      { numRuns: 200 },
    );
  });
});
