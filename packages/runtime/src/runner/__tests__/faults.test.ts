import type { RunEvent } from '@runlight/protocol';
import { isStepCount, type LanguageModel, tool } from 'ai';
import { MockProviderV4 } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgentRuntimeStore } from '../../store/agent-runtime-store';
import type { StoredRunEvent } from '../../store/evolve-run';
import { createMemoryDriver } from '../../store/memory-driver';
import { faultyDriver } from '../../testing/fault-driver';
import { type ScriptedStep, scriptedModel } from '../../testing/scripted-model';
import { createAgentRuntime } from '../agent-runtime';
import { harness, isPhase, nextEvent, user } from './harness';

const SECRET = 'hunter2';
const isStatus = (change: string) => (event: StoredRunEvent) =>
  event.type === 'run-status' && event.change === change;
const isOperation = (phase: string) => (event: StoredRunEvent) =>
  event.type === 'run-operation' && event.operation.phase === phase;
const isCheckpoint = (event: StoredRunEvent) =>
  event.type === 'assistant-checkpoint' || event.type === 'assistant-append';
const durableOnly = (events: RunEvent[]) => events.filter((event) => event.type !== 'run-delta');

/** Runs `steps` through a concrete model or, with `id`, through the global provider. */
const previousProvider = globalThis.AI_SDK_DEFAULT_PROVIDER;
afterEach(() => {
  globalThis.AI_SDK_DEFAULT_PROVIDER = previousProvider;
});
function modelOf(path: 'object' | 'id', steps: ScriptedStep[]): LanguageModel {
  const model = scriptedModel(steps);
  if (path === 'object') return model;
  globalThis.AI_SDK_DEFAULT_PROVIDER = new MockProviderV4({
    languageModels: { 'openai/gpt-5': model },
  });
  return 'openai/gpt-5';
}

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

describe('8: tool error text', () => {
  const failing = tool({
    inputSchema: z.object({}),
    execute: async (): Promise<string> => {
      throw new Error(`connect failed postgres://app:${SECRET}@db`);
    },
  });
  const script = () =>
    scriptedModel([{ toolCalls: [{ toolName: 'failing', input: {} }] }, { text: 'Sorry.' }]);
  const toolPartOf = async (h: ReturnType<typeof harness>) =>
    (await h.store.getSnapshot(h.runId)).assistant?.message.parts.find(
      (part) => part.type === 'tool-failing',
    ) as { state: string; errorText?: string } | undefined;

  it('is redacted by default in deltas, checkpoints and the snapshot', async () => {
    const h = harness();
    await h.runtime.startRun({
      runId: h.runId,
      model: script(),
      messages: user('Hi'),
      tools: { failing },
      stopWhen: isStepCount(2),
    }).done;

    expect(JSON.stringify(h.events)).not.toContain(SECRET);
    expect(JSON.stringify(await h.store.getSnapshot(h.runId))).not.toContain(SECRET);
    expect(await toolPartOf(h)).toMatchObject({
      state: 'output-error',
      errorText: 'The tool failed.',
    });
  });

  it('exposeToolErrors: true shows the text; a function maps it', async () => {
    const exposed = harness({ exposeToolErrors: true });
    await exposed.runtime.startRun({
      runId: exposed.runId,
      model: script(),
      messages: user('Hi'),
      tools: { failing },
      stopWhen: isStepCount(2),
    }).done;
    expect((await toolPartOf(exposed))?.errorText).toContain(SECRET);

    const mapped = harness({
      exposeToolErrors: (_error, { toolName, toolCallId }) => `${toolName} ${toolCallId} failed`,
    });
    await mapped.runtime.startRun({
      runId: mapped.runId,
      model: script(),
      messages: user('Hi'),
      tools: { failing },
      stopWhen: isStepCount(2),
    }).done;
    expect((await toolPartOf(mapped))?.errorText).toBe('failing call-0-0 failed');
    expect(JSON.stringify(durableOnly(mapped.events))).not.toContain(SECRET);
  });
});

describe('9: retries are visible on the attempt records', () => {
  it('a 429 then a 500 then an answer: one operation per attempt, reasons, willRetry, the first startedAt', async () => {
    const h = harness();
    const run = await h.runtime.startRun({
      runId: h.runId,
      model: scriptedModel([
        { error: { at: 'request', status: 429, retryAfterMs: 0, message: SECRET } },
        { error: { at: 'request', status: 500, retryAfterMs: 0, message: SECRET } },
        { text: 'Finally.' },
      ]),
      messages: user('Hi'),
    }).done;

    expect(run.status).toBe('completed');
    const ops = h.operations();
    const first = ops[0];
    expect(ops.map((op) => [op.attempt, op.phase, op.failureReason, op.willRetry])).toEqual([
      [1, 'started', undefined, undefined],
      [1, 'failed', 'rate_limited', true],
      [2, 'started', undefined, undefined],
      [2, 'failed', 'server_error', true],
      [3, 'started', undefined, undefined],
      [3, 'first-output', undefined, undefined],
      [3, 'completed', undefined, undefined],
    ]);
    expect(ops[0]?.requestStartedAt).toBeUndefined();
    for (const op of ops.slice(2)) expect(op.requestStartedAt).toBe(first?.startedAt);
  });

  it('the last attempt says willRetry false; a 400 is not retried', async () => {
    const h = harness();
    const run = await h.runtime.startRun({
      runId: h.runId,
      model: scriptedModel([
        { error: { at: 'request', status: 503, retryAfterMs: 0 } },
        { error: { at: 'request', status: 400 } },
      ]),
      messages: user('Hi'),
    }).done;
    expect(run.failure?.code).toBe('provider_failure');
    const failed = h.operations().filter((op) => op.phase === 'failed');
    expect(failed.map((op) => [op.failureReason, op.willRetry])).toEqual([
      ['server_error', true],
      ['other', false],
    ]);
  });
});

describe('found by the fault simulation', () => {
  const pay = tool({ inputSchema: z.object({ amount: z.number() }), execute: async () => 'paid' });
  const pausedRun = async () => {
    const h = harness();
    const options = {
      runId: h.runId,
      model: scriptedModel([
        { text: 'Paying.', toolCalls: [{ toolName: 'pay', input: { amount: 5 } }] },
        { text: 'Done.' },
      ]),
      messages: user('Pay 5'),
      tools: { pay },
      toolApproval: { pay: 'user-approval' as const },
      stopWhen: isStepCount(3),
    };
    const run = await h.runtime.startRun(options).done;
    expect(run.status).toBe('running');
    const parts = (await h.store.getSnapshot(h.runId)).assistant?.message.parts ?? [];
    const approvalId = parts.flatMap((part) =>
      'approval' in part && part.state === 'approval-requested' ? [part.approval.id] : [],
    )[0];
    return { h, approvalId: approvalId ?? '' };
  };

  it('a resume that leaves an approval request unanswered is refused (not a provider failure)', async () => {
    const { h } = await pausedRun();
    await expect(h.runtime.resumeRun({ runId: h.runId, approvals: [] }).done).rejects.toThrow(
      /unanswered approval requests/,
    );
    expect((await h.store.getRun(h.runId)).status).toBe('running');
  });

  it('a resume sent while a cancel of the paused run is in progress waits, then finds it ended', async () => {
    const { h, approvalId } = await pausedRun();
    h.runtime.cancelRun(h.runId);
    const resumed = h.runtime.resumeRun({
      runId: h.runId,
      approvals: [{ approvalId, approved: true }],
    }).done;

    await expect(resumed).rejects.toThrow(/already ended cancelled/);
    const run = await h.store.getRun(h.runId);
    expect(run.status).toBe('cancelled');
    expect(h.durable()).toEqual(await h.store.readEvents(h.runId));
  });
});
