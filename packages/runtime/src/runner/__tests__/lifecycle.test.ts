import { manualClock, modelRequest } from '@runlight/test-utils';
import { describe, expect, it, vi } from 'vitest';
import { createAgentRuntimeStore } from '../../store/agent-runtime-store';
import { createMemoryDriver } from '../../store/driver/memory-driver';
import { OwnedRun } from '../../store/owned-run';
import { scriptedModel } from '../../testing/scripted-model';
import { GENERIC_ERROR_TEXT } from '../run-execution';
import { gatedModel, harness, isPhase, nextEvent, user } from './harness';

const SECRET = 'sk-live-SECRET-4242 prompt: my diagnosis';

describe('the provider wait', () => {
  it('a snapshot taken mid-wait shows started with the original startedAt; the end carries it', async () => {
    const h = harness();
    const { model, open } = gatedModel([{ text: 'Finally here' }]);
    const handle = h.runtime.startRun({ runId: h.runId, model, messages: user('Hi') });
    const started = await nextEvent(h.runtime, h.runId, isPhase('started'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const snapshot = await h.store.getSnapshot(h.runId); // the provider has not answered yet
    open();
    const run = await handle.done;

    if (started.type !== 'run-operation') throw new Error('unreachable');
    expect(snapshot.run.lastOperation).toEqual(started.operation);
    expect(snapshot.run.lastOperation?.phase).toBe('started');
    expect(run.lastOperation).toMatchObject({
      id: started.operation.id,
      phase: 'completed',
      startedAt: started.operation.startedAt,
      firstOutputAt: expect.any(String),
      endedAt: expect.any(String),
    });
  });
});

describe('cancellation', () => {
  it('cancelRun during the provider wait ends the operation and the run cancelled', async () => {
    const h = harness();
    const model = scriptedModel([{ firstTokenMs: 60_000, text: 'too late' }]);
    const handle = h.runtime.startRun({ runId: h.runId, model, messages: user('Hi') });
    await nextEvent(h.runtime, h.runId, isPhase('started'));
    h.runtime.cancelRun(h.runId);
    const run = await handle.done;

    expect(run.status).toBe('cancelled');
    expect(run.lastOperation?.phase).toBe('cancelled');
    expect(h.operations().map((operation) => operation.phase)).toEqual(['started', 'cancelled']);
    expect(h.logs).toEqual([]);
  });

  it('an aborted abortSignal while streaming ends the operation and the run cancelled', async () => {
    const h = harness();
    const controller = new AbortController();
    const model = scriptedModel([{ tokenMs: 20, text: 'one two three four five six seven' }]);
    const handle = h.runtime.startRun({
      runId: h.runId,
      model,
      messages: user('Hi'),
      abortSignal: controller.signal,
    });
    await nextEvent(h.runtime, h.runId, isPhase('first-output'));
    controller.abort();
    const run = await handle.done;

    expect(run.status).toBe('cancelled');
    expect(h.operations().map((operation) => operation.phase)).toEqual([
      'started',
      'first-output',
      'cancelled',
    ]);
    const text = (await h.store.getSnapshot(h.runId)).assistant?.message.parts.find(
      (p) => p.type === 'text',
    );
    expect(text && 'text' in text ? text.text.length : 0).toBeLessThan(
      'one two three four five six seven'.length,
    );
  });

  it('cancelRun while streaming from the live deltas ends cancelled', async () => {
    const h = harness();
    const model = scriptedModel([{ tokenMs: 20, text: 'one two three four five six seven' }]);
    const handle = h.runtime.startRun({ runId: h.runId, model, messages: user('Hi') });
    await nextEvent(
      h.runtime,
      h.runId,
      (event) => event.type === 'run-delta' && event.chunk.type === 'text-delta',
    );
    h.runtime.cancelRun(h.runId);
    const run = await handle.done;
    expect(run.status).toBe('cancelled');
    expect(run.lastOperation?.phase).toBe('cancelled');
  });
});

describe('provider failures', () => {
  const expectNoSecret = async (h: ReturnType<typeof harness>) => {
    expect(JSON.stringify(h.events)).not.toContain('SECRET');
    expect(JSON.stringify(await h.store.readEvents(h.runId))).not.toContain('SECRET');
    expect(JSON.stringify(await h.store.getSnapshot(h.runId))).not.toContain('SECRET');
    // The log says a model request failed and names the error's kind, never its text.
    expect(h.logs.some((entry) => entry.error !== undefined)).toBe(true);
    expect(JSON.stringify(h.logs)).not.toContain('SECRET');
  };

  it('before the first output: operation failed, run provider_failure, the text nowhere (not even the log)', async () => {
    const h = harness();
    const model = scriptedModel([{ firstTokenMs: 5, error: { at: 'request', message: SECRET } }]);
    const run = await h.runtime.startRun({ runId: h.runId, model, messages: user('Hi') }).done;

    expect(run.status).toBe('failed');
    expect(run.failure).toEqual({
      code: 'provider_failure',
      operationId: h.operations()[0]?.id,
    });
    expect(h.operations().map((operation) => operation.phase)).toEqual(['started', 'failed']);
    await expectNoSecret(h);
  });

  it('mid-stream: the error delta carries generic text and the run fails provider_failure', async () => {
    const h = harness();
    const model = scriptedModel([
      { text: 'one two three four', error: { at: 2, message: SECRET } },
    ]);
    const run = await h.runtime.startRun({ runId: h.runId, model, messages: user('Hi') }).done;

    expect(run.failure?.code).toBe('provider_failure');
    expect(h.operations().map((operation) => operation.phase)).toEqual([
      'started',
      'first-output',
      'failed',
    ]);
    const errors = h.events.flatMap((event) =>
      event.type === 'run-delta' && event.chunk.type === 'error' ? [event.chunk.errorText] : [],
    );
    expect(errors).toEqual([GENERIC_ERROR_TEXT]);
    await expectNoSecret(h);
  });
});

describe('the lease during a long provider wait', () => {
  it('is renewed while the provider is silent, so another owner cannot take the run', async () => {
    // A lease of 1 s, renewed every 1/6 of it while idle: only a loop stalled for most of a
    // second lets it lapse.
    const h = harness({ leaseMs: 1_000 });
    const { model, open } = gatedModel([{ text: 'slow but mine' }]);
    const handle = h.runtime.startRun({ runId: h.runId, model, messages: user('Hi') });
    await nextEvent(h.runtime, h.runId, isPhase('started'));
    // The lease as the last lifecycle write left it; the provider stays silent past it.
    const { leaseExpiresAt } = await h.store.getRun(h.runId);
    await vi.waitFor(() => expect(Date.now()).toBeGreaterThan(Date.parse(leaseExpiresAt!)), {
      timeout: 20_000,
      interval: 20,
    });
    // Past one lease after the last lifecycle write: only the heartbeat keeps it held.
    await expect(
      h.store.acquireRun(h.runId, { owner: 'worker-b', leaseMs: 1_000 }),
    ).rejects.toMatchObject({ name: 'FencingError', reason: 'lease-held' });
    open();
    const run = await handle.done;
    expect(run).toMatchObject({ status: 'completed', owner: 'worker-a' });
  });
});

describe('provider retries', () => {
  it('each attempt of a step is its own operation; a successful retry completes the run', async () => {
    const h = harness();
    const model = scriptedModel([
      { error: { at: 'request', message: 'overloaded', retryAfterMs: 1 } },
      { text: 'second time lucky' },
    ]);
    const run = await h.runtime.startRun({ runId: h.runId, model, messages: user('Hi') }).done;

    expect(run.status).toBe('completed');
    expect(model.doStreamCalls).toHaveLength(2);
    expect(
      h.operations().map((operation) => [operation.id.replace(/:.+:/, ':…:'), operation.phase]),
    ).toEqual([
      ['model-request:…:attempt-1', 'started'],
      ['model-request:…:attempt-1', 'failed'],
      ['model-request:…:attempt-2', 'started'],
      ['model-request:…:attempt-2', 'first-output'],
      ['model-request:…:attempt-2', 'completed'],
    ]);
    expect(h.operations().every((operation) => operation.step === 0)).toBe(true);
    expect(h.logs.map((entry) => entry.level)).toEqual(['warn']);
  });
});

describe('taking over from an owner that died mid-stream', () => {
  it('records its operation failed, continues its streaming text in the same part and finishes the run', async () => {
    const clock = manualClock();
    const store = createAgentRuntimeStore(createMemoryDriver(), { now: clock.now });
    await store.createRun({ runId: 'run-1' });
    const dead = new OwnedRun(
      store,
      await store.acquireRun('run-1', { owner: 'worker-dead', leaseMs: 1_000 }),
    );
    await dead.recordRunOperation(modelRequest(0));
    await dead.recordRunOperation(modelRequest(0, 'first-output'));
    await dead.saveAssistantCheckpoint({
      id: 'message-1',
      role: 'assistant',
      parts: [{ type: 'step-start' }, { type: 'text', text: 'Half a sent', state: 'streaming' }],
    });
    clock.advance(1_001);

    const h = harness({ store, owner: 'worker-b' });
    const model = scriptedModel([{ text: 'A whole sentence.' }]);
    const run = await h.runtime.startRun({ runId: 'run-1', model, messages: user('Hi') }).done;

    expect(run).toMatchObject({ status: 'completed', owner: 'worker-b' });
    expect(h.operations()[0]).toMatchObject({ id: 'model-request:step-0', phase: 'failed' });
    const snapshot = await store.getSnapshot('run-1');
    // Issue 45 item 6: one answer, one text part — the new owner's text continues the dead
    // owner's (no second step-start, no second block), closed once it is written.
    expect(snapshot.assistant?.message.parts).toEqual([
      { type: 'step-start' },
      { type: 'text', text: 'Half a sentA whole sentence.', state: 'done' },
    ]);
  });
});
