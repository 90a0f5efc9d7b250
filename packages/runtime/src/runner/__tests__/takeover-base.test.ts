import type { RunDeltaEvent, RunEvent } from '@runlight/protocol';
import { describe, expect, it } from 'vitest';
import { createAgentRuntimeStore } from '../../store/agent-runtime-store';
import { createMemoryDriver } from '../../store/driver/memory-driver';
import { scriptedModel } from '../../testing/scripted-model';
import { createAgentRuntime } from '../agent-runtime';
import { nextEvent, user } from './harness';

const RUN_ID = 'run-taken-before-read';
const deltas = (events: RunEvent[]) =>
  events.filter((event): event is RunDeltaEvent => event.type === 'run-delta');

/**
 * Issue 21 item 7 (the soak's "shares its base … glued text", FC_SEED=1705723763): a run's first
 * execution (token 1) acquires the run, and before it reads the message it continues, another
 * runtime takes the run over and writes its rebase checkpoint. The first execution then read
 * the taker's write as its base and published deltas on it, numbered from 1 like the taker's:
 * a client at `4:3` took the taker's `4:1..3` for duplicates and glued the two texts.
 */
describe('an execution that reads its start after a takeover', () => {
  it('publishes no delta on the new owner’s write: it stops on the fence first', async () => {
    const driver = createMemoryDriver();
    const store = createAgentRuntimeStore(driver);
    // The thief's clock is ten minutes ahead: the first owner's lease has expired for it.
    const thiefStore = createAgentRuntimeStore(driver, {
      now: () => new Date(Date.now() + 10 * 60_000),
    });
    const thief = createAgentRuntime({ owner: 'worker-b', store: thiefStore });
    const thiefEvents: RunEvent[] = [];
    thief.subscribe(RUN_ID, (event) => thiefEvents.push(event));
    let thiefDone: Promise<unknown> = Promise.resolve();
    let stolen = false;
    const victimStore: typeof store = {
      ...store,
      async getSnapshot(runId) {
        const run = await store.getRun(runId).catch(() => null);
        if (!stolen && run?.fencingToken === 1) {
          stolen = true;
          const rebased = nextEvent(thief, RUN_ID, (e) => e.type === 'assistant-checkpoint');
          thiefDone = thief.startRun({
            runId: RUN_ID,
            model: scriptedModel([{ text: 'The new owner answers.' }]),
            messages: user('Hi'),
          }).done;
          await rebased;
        }
        return store.getSnapshot(runId);
      },
    };
    const victim = createAgentRuntime({
      owner: 'worker-a',
      store: victimStore,
      onLog: () => {},
    });
    const victimEvents: RunEvent[] = [];
    victim.subscribe(RUN_ID, (event) => victimEvents.push(event));

    const run = await victim.startRun({
      runId: RUN_ID,
      model: scriptedModel([{ text: 'The first owner answers at length.' }]),
      messages: user('Hi'),
    }).done;
    await thiefDone;

    expect(stolen).toBe(true);
    expect(run.fencingToken).toBe(2);
    expect(deltas(victimEvents)).toEqual([]);
    const taken = deltas(thiefEvents);
    expect(taken.length).toBeGreaterThan(0);
    expect(taken.every((delta) => delta.fencingToken === 2)).toBe(true);
    const snapshot = await store.getSnapshot(RUN_ID);
    expect(snapshot.run.status).toBe('completed');
    expect(JSON.stringify(snapshot.assistant?.message.parts)).toContain('The new owner answers.');
    expect(JSON.stringify(snapshot.assistant?.message.parts)).not.toContain('first owner');
  });
});
