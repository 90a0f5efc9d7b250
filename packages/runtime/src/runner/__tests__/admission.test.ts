import { MockProviderV4 } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgentRuntimeStore } from '../../store/agent-runtime-store';
import type { AgentRuntimeDriver } from '../../store/driver/driver';
import { createMemoryDriver } from '../../store/driver/memory-driver';
import type { StoredRunEvent } from '../../store/log/evolve-run';
import { wholeStoredEvent } from '../../store/log/packed-event';
import { scriptedModel } from '../../testing/scripted-model';
import { harness, user } from './harness';

/** A driver that loses the compare-and-set of the first write matching `when`. */
function loseOnce(driver: AgentRuntimeDriver, when: (event: StoredRunEvent) => boolean) {
  let lost = false;
  return {
    ...driver,
    compareAndSet: async (runId, expected, next, events, head) => {
      if (!lost && events[0] && when(wholeStoredEvent(events[0]))) {
        lost = true;
        return false;
      }
      return driver.compareAndSet(runId, expected, next, events, head);
    },
  } satisfies AgentRuntimeDriver;
}

const isStarted = (event: StoredRunEvent) =>
  event.type === 'run-operation' && event.operation.phase === 'started';

describe('model request admission (concrete model, wrapStream)', () => {
  it('a lost compare-and-set on started: the provider is never called, the run ends storage_conflict', async () => {
    const h = harness({ driver: loseOnce(createMemoryDriver(), isStarted) });
    const model = scriptedModel([{ text: 'never' }]);
    const run = await h.runtime.startRun({ runId: h.runId, model, messages: user('Hi') }).done;

    expect(model.doStreamCalls).toEqual([]);
    expect(run.status).toBe('failed');
    expect(run.failure?.code).toBe('storage_conflict');
    expect(run.failure?.operationId).toMatch(/^model-request:step-0:/);
    expect(h.operations()).toEqual([]);
    expect(h.durable().at(-1)).toMatchObject({ type: 'run-status', change: 'failed' });
  });

  it('a stolen lease: the provider is never called and the old owner writes nothing more', async () => {
    let offsetMs = 0;
    const store = createAgentRuntimeStore(createMemoryDriver(), {
      now: () => new Date(Date.now() + offsetMs),
    });
    const thief = async () => {
      offsetMs = 10 * 60_000; // the lease expired
      await store.acquireRun('run-1', { owner: 'worker-b', leaseMs: 30_000 });
    };
    const stealing = {
      ...store,
      recordRunOperation: async (...args: Parameters<typeof store.recordRunOperation>) => {
        await thief();
        return store.recordRunOperation(...args);
      },
    };
    const h = harness({ store: stealing });
    const model = scriptedModel([{ text: 'never' }]);
    const run = await h.runtime.startRun({ runId: h.runId, model, messages: user('Hi') }).done;

    expect(model.doStreamCalls).toEqual([]);
    expect(run).toMatchObject({ status: 'running', owner: 'worker-b', failure: null });
    const events = await store.readEvents(h.runId);
    expect(events.map((event) => [event.type, 'change' in event ? event.change : null])).toEqual([
      ['run-status', 'created'],
      ['run-status', 'acquired'],
      ['run-status', 'acquired'],
    ]);
    expect(h.logs.map((entry) => entry.message)).toEqual([
      expect.stringMatching(/ownership lost/i),
    ]);
  });
});

describe('model request admission (model id through the global provider, prepareStep)', () => {
  const previous = globalThis.AI_SDK_DEFAULT_PROVIDER;
  afterEach(() => {
    globalThis.AI_SDK_DEFAULT_PROVIDER = previous;
  });

  it('admits each step with a runtime-generated id before the provider is called', async () => {
    const model = scriptedModel([{ text: 'Hello there' }]);
    globalThis.AI_SDK_DEFAULT_PROVIDER = new MockProviderV4({
      languageModels: { 'openai/gpt-5': model },
    });
    const h = harness();
    const run = await h.runtime.startRun({
      runId: h.runId,
      model: 'openai/gpt-5',
      messages: user('Hi'),
    }).done;

    expect(run.status).toBe('completed');
    expect(model.doStreamCalls).toHaveLength(1);
    const operations = h.operations();
    expect(operations.map((operation) => operation.phase)).toEqual([
      'started',
      'first-output',
      'completed',
    ]);
    expect(new Set(operations.map((operation) => operation.id)).size).toBe(1);
    expect(operations[0]?.id).toMatch(/^model-request:step-0:\S+$/);
    expect(operations[0]?.step).toBe(0);
  });

  it('an unknown model id fails the run internal: done resolves, it never rejects', async () => {
    globalThis.AI_SDK_DEFAULT_PROVIDER = new MockProviderV4({ languageModels: {} });
    const h = harness();
    const run = await h.runtime.startRun({
      runId: h.runId,
      model: 'nobody/none',
      messages: user('Hi'),
    }).done;
    expect(run).toMatchObject({ status: 'failed', failure: { code: 'internal' } });
    expect(h.operations()).toEqual([]);
  });

  it('a rejected admission fails the run before any provider call', async () => {
    const model = scriptedModel([{ text: 'never' }]);
    globalThis.AI_SDK_DEFAULT_PROVIDER = new MockProviderV4({
      languageModels: { 'openai/gpt-5': model },
    });
    const h = harness({ driver: loseOnce(createMemoryDriver(), isStarted) });
    const run = await h.runtime.startRun({
      runId: h.runId,
      model: 'openai/gpt-5',
      messages: user('Hi'),
    }).done;

    expect(model.doStreamCalls).toEqual([]);
    expect(run.failure?.code).toBe('storage_conflict');
  });
});
