import { isStepCount, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgentRuntimeStore } from '../../store/agent-runtime-store';
import { createMemoryDriver } from '../../store/driver/memory-driver';
import type { StoredRunEvent } from '../../store/log/evolve-run';
import { faultyDriver } from '../../testing/fault-driver';
import { type ScriptedStep, scriptedModel } from '../../testing/scripted-model';
import { createAgentRuntime } from '../agent-runtime';
import {
  isCheckpoint,
  isOperation,
  isStatus,
  modelOf,
  restoreDefaultProvider,
  SECRET,
} from './fault-fixtures';
import { harness, isPhase, nextEvent, user } from './harness';

restoreDefaultProvider();

describe('1: the terminal commit under driver errors', () => {
  it.each(['before', 'after'] as const)(
    'a driver that throws once %s writing the terminal still ends the run, and its end is published',
    async (when) => {
      const driver = faultyDriver(createMemoryDriver());
      driver.inject({ call: 'compareAndSet', when, match: isStatus('completed') });
      const h = harness({ driver, storeRetry: { delayMs: 0 } });
      const run = await h.runtime.startRun({
        runId: h.runId,
        model: scriptedModel([{ text: 'Hello there' }]),
        messages: user('Hi'),
      }).done;

      expect(driver.fired).toBe(1);
      expect(run.status).toBe('completed');
      expect(await h.store.getRun(h.runId)).toEqual(run);
      expect(h.durable()).toEqual(await h.store.readEvents(h.runId));
    },
  );
});

describe('2: a stopped execution is not misread as cancelled while pausing', () => {
  it('a provider failure whose failed commit hits one transient error stays provider_failure', async () => {
    const driver = faultyDriver(createMemoryDriver());
    driver.inject({ call: 'compareAndSet', when: 'before', match: isStatus('failed') });
    const h = harness({ driver, storeRetry: { delayMs: 0 } });
    const run = await h.runtime.startRun({
      runId: h.runId,
      model: scriptedModel([{ error: { at: 'request', message: SECRET } }]),
      messages: user('Hi'),
    }).done;

    expect(run).toMatchObject({ status: 'failed', failure: { code: 'provider_failure' } });
    expect((await h.store.getRun(h.runId)).status).toBe('failed');
  });

  it('a runtime fenced out by another with the same owner name does not cancel its healthy run', async () => {
    const store = createAgentRuntimeStore(createMemoryDriver());
    const a = harness({ store, owner: 'replica' });
    const b = createAgentRuntime({ store, owner: 'replica', onLog: () => {} });
    const first = a.runtime.startRun({
      runId: a.runId,
      model: scriptedModel([{ firstTokenMs: 60, text: 'from a' }]),
      messages: user('Hi'),
    });
    await nextEvent(a.runtime, a.runId, isPhase('started'));
    const second = b.startRun({
      runId: a.runId,
      model: scriptedModel([{ firstTokenMs: 150, text: 'from b' }]),
      messages: user('Hi'),
    });
    await first.done;
    const run = await second.done;

    expect(run.status).toBe('completed');
    expect((await store.getRun(a.runId)).status).toBe('completed');
  });

  it('the default owner is unique per runtime instance and names the process', async () => {
    const store = createAgentRuntimeStore(createMemoryDriver());
    const owners = await Promise.all(
      ['run-a', 'run-b'].map(async (runId) => {
        const runtime = createAgentRuntime({ store, onLog: () => {} });
        const run = await runtime.startRun({
          runId,
          model: scriptedModel([{ text: 'Hi' }]),
          messages: user('Hi'),
        }).done;
        const acquired = (await store.readEvents(runId)).find(isStatus('acquired'));
        return acquired?.type === 'run-status' ? acquired.owner : run.owner;
      }),
    );
    expect(owners[0]).not.toBe(owners[1]);
    for (const owner of owners) expect(owner).toContain(`-${process.pid}-`);
  });
});

describe('3 + 4: provider failures on both model paths are failed, never cancelled or internal', () => {
  const failures: [string, ScriptedStep[], number?][] = [
    ['an error part mid-answer', [{ text: 'Hel lo world', error: { at: 1, message: SECRET } }]],
    ['a rejected request', [{ error: { at: 'request', message: SECRET } }]],
    [
      'exhausted retries',
      [
        { error: { at: 'request', status: 503, retryAfterMs: 0, message: SECRET } },
        { error: { at: 'request', status: 503, retryAfterMs: 0, message: SECRET } },
      ],
      1,
    ],
    [
      'a stream that breaks after "Hel"',
      [{ text: 'Hel lo world', error: { at: 1, break: true, message: SECRET } }],
    ],
  ];
  for (const path of ['object', 'id'] as const) {
    it.each(failures)(`model ${path}: %s`, async (_name, steps, maxRetries) => {
      const h = harness();
      const run = await h.runtime.startRun({
        runId: h.runId,
        model: modelOf(path, steps),
        messages: user('Hi'),
        maxRetries,
      }).done;

      expect(run.status).toBe('failed');
      expect(run.failure?.code).toBe('provider_failure');
      expect(run.lastOperation?.phase).toBe('failed');
      expect(run.failure?.operationId).toBe(run.lastOperation?.id);
      expect(JSON.stringify(h.events)).not.toContain(SECRET);
      expect(JSON.stringify(await h.store.getSnapshot(h.runId))).not.toContain(SECRET);
    });
  }
});

describe('4: an error out of the SDK iterator that is not the provider', () => {
  it('a throwing stopWhen is internal, not a provider failure', async () => {
    const h = harness();
    const lookup = tool({ inputSchema: z.object({}), execute: async () => 'x' });
    const run = await h.runtime.startRun({
      runId: h.runId,
      model: scriptedModel([{ toolCalls: [{ toolName: 'lookup', input: {} }] }, { text: 'No.' }]),
      messages: user('Hi'),
      tools: { lookup },
      stopWhen: () => {
        throw new Error(`stop condition broke: ${SECRET}`);
      },
    }).done;

    expect(run).toMatchObject({ status: 'failed', failure: { code: 'internal' } });
    expect(JSON.stringify(h.events)).not.toContain(SECRET);
  });
});

describe('5: the model request ends when the provider stream finishes, before tools run', () => {
  it.each(['object', 'id'] as const)(
    'model %s: a slow tool runs while the request is completed',
    async (path) => {
      const h = harness();
      const seen: (string | undefined)[] = [];
      const slow = tool({
        inputSchema: z.object({}),
        execute: async () => {
          seen.push((await h.store.getRun(h.runId)).lastOperation?.phase);
          await new Promise((resolve) => setTimeout(resolve, 30));
          return 'ok';
        },
      });
      const run = await h.runtime.startRun({
        runId: h.runId,
        model: modelOf(path, [
          { text: 'Let me check.', toolCalls: [{ toolName: 'slow', input: {} }] },
          { text: 'Done.' },
        ]),
        messages: user('Hi'),
        tools: { slow },
        stopWhen: isStepCount(3),
      }).done;

      expect(run.status).toBe('completed');
      expect(seen).toEqual(['completed']);
    },
  );
});

describe('6: only a parsed tool call is first output', () => {
  it.each(['object', 'id'] as const)(
    'model %s: an unparsable tool call is not first output',
    async (path) => {
      const h = harness();
      const lookup = tool({
        inputSchema: z.object({ city: z.string() }),
        execute: async () => 'x',
      });
      await h.runtime.startRun({
        runId: h.runId,
        model: modelOf(path, [
          {
            toolCalls: [
              { toolName: 'lookup', input: {}, rawInput: '{"city": ', streamInput: false },
            ],
          },
        ]),
        messages: user('Hi'),
        tools: { lookup },
      }).done;

      expect(h.operations().map((operation) => operation.phase)).toEqual(['started', 'completed']);
    },
  );
});

describe('7: non-conflict driver errors on owned writes', () => {
  const cases: [string, (event: StoredRunEvent) => boolean, 'before' | 'after'][] = [
    ['a checkpoint, before writing', isCheckpoint, 'before'],
    ['a checkpoint, after writing', isCheckpoint, 'after'],
    ['an operation, before writing', isOperation('first-output'), 'before'],
    ['an operation, after writing', isOperation('first-output'), 'after'],
  ];
  it.each(cases)(
    '%s: retried or recognised as landed; the run completes',
    async (_name, match, when) => {
      const driver = faultyDriver(createMemoryDriver());
      driver.inject({ call: 'compareAndSet', when, match });
      const h = harness({ driver, checkpointEveryEvents: 2, storeRetry: { delayMs: 0 } });
      const run = await h.runtime.startRun({
        runId: h.runId,
        model: scriptedModel([{ text: 'one two three four five' }]),
        messages: user('Hi'),
      }).done;

      expect(driver.fired).toBe(1);
      expect(run.status).toBe('completed');
      expect(h.operations().map((operation) => operation.phase)).toEqual([
        'started',
        'first-output',
        'completed',
      ]);
      expect(h.durable()).toEqual(await h.store.readEvents(h.runId));
      expect(JSON.stringify(h.logs)).toContain('retried');
    },
  );

  it('a store that keeps failing ends the run storage_unavailable once it answers again', async () => {
    const driver = faultyDriver(createMemoryDriver());
    driver.inject({ call: 'compareAndSet', when: 'before', match: isCheckpoint, times: 3 });
    const h = harness({
      driver,
      checkpointEveryEvents: 2,
      storeRetry: { attempts: 3, delayMs: 0 },
    });
    const run = await h.runtime.startRun({
      runId: h.runId,
      model: scriptedModel([{ text: 'one two three four five' }]),
      messages: user('Hi'),
    }).done;

    expect(run).toMatchObject({ status: 'failed', failure: { code: 'storage_unavailable' } });
    expect(await h.store.getRun(h.runId)).toEqual(run);
    expect(h.durable()).toEqual(await h.store.readEvents(h.runId));
    expect(JSON.stringify(h.events)).not.toContain(SECRET);
  });
});
