import { isStepCount, type ToolExecutionOptions, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgentRuntimeStore } from '../../store/agent-runtime-store';
import { createMemoryDriver } from '../../store/driver/memory-driver';
import { scriptedModel } from '../../testing/scripted-model';
import { idempotencyKeyOf } from '../tools/managed-tools';
import { harness, user } from './harness';

/**
 * A store, and a thief that takes the run over the same driver ten minutes later: by its clock
 * the runner's lease has expired, whatever the runner wrote meanwhile (a checkpoint may land
 * while a tool runs: persistence does not gate tools).
 */
function stealableStore() {
  const driver = createMemoryDriver();
  const store = createAgentRuntimeStore(driver);
  const thief = createAgentRuntimeStore(driver, {
    now: () => new Date(Date.now() + 10 * 60_000),
  });
  let stolenAt = 0;
  const steal = async () => {
    stolenAt = (await thief.acquireRun('run-1', { owner: 'worker-b', leaseMs: 30_000 })).revision;
  };
  return { store, steal, stolenAt: () => stolenAt };
}

async function runWithTool(
  store: ReturnType<typeof stealableStore>['store'],
  execute: (input: unknown, options: ToolExecutionOptions<unknown>) => Promise<unknown>,
) {
  const h = harness({ store });
  const act = tool({ inputSchema: z.object({}), execute });
  const model = scriptedModel([
    { toolCalls: [{ toolName: 'act', input: {} }] },
    { text: 'after the effect' },
  ]);
  const run = await h.runtime.startRun({
    runId: h.runId,
    model,
    messages: user('act'),
    tools: { act },
    stopWhen: isStepCount(3),
  }).done;
  return { h, run, model };
}

describe('the managed tool fence', () => {
  it('checks ownership against the store before the effect: a stolen run never runs it', async () => {
    const { store, steal, stolenAt } = stealableStore();
    let effects = 0;
    let first = true;
    const fenced = {
      ...store,
      getRun: async (runId: string) => {
        if (first) {
          first = false;
          await steal();
        }
        return store.getRun(runId);
      },
    };
    const { h, run, model } = await runWithTool(fenced, async () => {
      effects++;
      return 'done';
    });

    expect(effects).toBe(0);
    expect(model.doStreamCalls).toHaveLength(1);
    expect(run.owner).toBe('worker-b');
    expect(await store.readEvents(h.runId, { afterRevision: stolenAt() })).toEqual([]);
    expect(h.logs.map((entry) => entry.message)).toEqual([
      expect.stringMatching(/ownership lost/i),
    ]);
  });

  it('checks again after the effect: a run lost meanwhile records nothing of its result', async () => {
    const { store, steal, stolenAt } = stealableStore();
    let effects = 0;
    const { h, run, model } = await runWithTool(store, async () => {
      effects++;
      await steal();
      return 'done';
    });

    expect(effects).toBe(1);
    expect(model.doStreamCalls).toHaveLength(1);
    expect(run.owner).toBe('worker-b');
    expect(await store.readEvents(h.runId, { afterRevision: stolenAt() })).toEqual([]);
  });

  it('a held run executes the effect once, with the idempotency key, and continues', async () => {
    const { store } = stealableStore();
    const keys: (string | undefined)[] = [];
    const { run, model } = await runWithTool(store, async (_input, options) => {
      keys.push(idempotencyKeyOf(options));
      return 'done';
    });
    expect([run.status, model.doStreamCalls.length]).toEqual(['completed', 2]);
    expect(keys).toEqual(['run-1:call-0-0']);
  });
});
