import type { DurableRunEvent, RunOperation } from '@runlight/protocol';
import {
  type AgentRuntime,
  createAgentRuntime,
  createAgentRuntimeStore,
  createMemoryDriver,
} from '@runlight/runtime';
import { afterEach, describe, expect, it } from 'vitest';
import { type MockCompletion, startOpenAiMockServer } from '../openai-mock-server';
import { realModel } from '../real-model';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

const tokens = ['The', ' answer', ' is', ' forty', '-two', '.'];

/**
 * One run through the real `@ai-sdk/openai-compatible` provider against the loopback mock:
 * the durable facts it left (store) and every event published for it.
 */
async function runAgainst(script: MockCompletion[], options: { maxRetries?: number } = {}) {
  const mock = await startOpenAiMockServer(script);
  closers.push(mock.close);
  const store = createAgentRuntimeStore(createMemoryDriver());
  const logs: unknown[] = [];
  const runtime: AgentRuntime = createAgentRuntime({
    store,
    checkpointEveryEvents: 2,
    onLog: (entry) => logs.push(entry),
  });
  const events: DurableRunEvent[] = [];
  const runId = 'real-1';
  runtime.subscribe(runId, (event) => {
    if (event.type !== 'run-delta') events.push(event);
  });
  const model = realModel({
    baseURL: mock.baseUrl,
    apiKey: 'sk-test',
    model: 'mock-model',
    label: 'mock',
  });
  const run = await runtime.startRun({
    runId,
    model,
    messages: [{ role: 'user', content: 'What is the answer?' }],
    ...options,
  }).done;
  const snapshot = await store.getSnapshot(runId);
  const stored = await store.readEvents(runId, { afterRevision: 0 });
  /** The last recorded state of each operation, in the order they started. */
  const operations = new Map<string, RunOperation>();
  const phases = new Map<string, string[]>();
  for (const event of stored) {
    if (event.type !== 'run-operation') continue;
    operations.set(event.operation.id, event.operation);
    phases.set(event.operation.id, [
      ...(phases.get(event.operation.id) ?? []),
      event.operation.phase,
    ]);
  }
  const text = (snapshot.assistant?.message.parts ?? [])
    .map((part) => (part.type === 'text' ? part.text : ''))
    .join('');
  return {
    mock,
    run,
    snapshot,
    stored,
    events,
    operations: [...operations.values()],
    phases,
    text,
    logs,
  };
}

/** Timestamps only as the protocol orders them: started ≤ first output ≤ ended. */
function expectOrdered(operation: RunOperation) {
  const started = Date.parse(operation.startedAt);
  const first =
    'firstOutputAt' in operation && operation.firstOutputAt
      ? Date.parse(operation.firstOutputAt)
      : started;
  const ended = 'endedAt' in operation && operation.endedAt ? Date.parse(operation.endedAt) : first;
  expect(first).toBeGreaterThanOrEqual(started);
  expect(ended).toBeGreaterThanOrEqual(first);
}

/** No provider error text (the mock's bodies carry `sk-secret-123`) in any durable record or event. */
function expectNoProviderText(result: Awaited<ReturnType<typeof runAgainst>>) {
  const durable = JSON.stringify([result.snapshot, result.stored, result.events]);
  expect(durable).not.toContain('sk-secret');
  expect(durable).not.toContain('rate_limit_exceeded');
  expect(durable).not.toContain('mock server_error');
}

describe('a real OpenAI-compatible provider against a loopback mock: the durable facts', () => {
  it('a streamed answer after a first-token delay: started → first-output → completed, the wait on record', async () => {
    const result = await runAgainst([{ kind: 'stream', tokens, firstTokenMs: 250, tokenMs: 5 }]);
    expect(result.run.status).toBe('completed');
    expect(result.text).toBe(tokens.join(''));
    expect(result.operations).toHaveLength(1);
    const [operation] = result.operations;
    expect(operation).toMatchObject({ kind: 'model-request', phase: 'completed', step: 0 });
    expect(result.phases.get(operation!.id)).toEqual(['started', 'first-output', 'completed']);
    expectOrdered(operation!);
    const waited =
      Date.parse((operation as { firstOutputAt: string }).firstOutputAt) -
      Date.parse(operation!.startedAt);
    expect(waited).toBeGreaterThanOrEqual(200);
    expect(result.mock.requests).toHaveLength(1);
    expect(result.mock.requests[0]).toMatchObject({ model: 'mock-model', stream: true });
  });

  it('429 with retry-after, then an answer: the failed attempt and the retry are both on record; the run completes', async () => {
    const result = await runAgainst([
      { kind: 'status', status: 429, retryAfterSeconds: 1 },
      { kind: 'stream', tokens, tokenMs: 2 },
    ]);
    expect(result.run.status).toBe('completed');
    expect(result.text).toBe(tokens.join(''));
    expect(result.mock.requests).toHaveLength(2);
    expect(result.operations).toHaveLength(2);
    const [failed, retried] = result.operations;
    // The wait stays honest across the retry: attempt numbers, why it failed (from the status
    // code, never provider text), that a retry follows, and when the request really began.
    expect(failed).toMatchObject({
      kind: 'model-request',
      phase: 'failed',
      step: 0,
      attempt: 1,
      failureReason: 'rate_limited',
      willRetry: true,
    });
    expect(result.phases.get(failed!.id)).toEqual(['started', 'failed']);
    expect(retried).toMatchObject({
      kind: 'model-request',
      phase: 'completed',
      step: 0,
      attempt: 2,
      requestStartedAt: failed!.startedAt,
    });
    expect(result.phases.get(retried!.id)).toEqual(['started', 'first-output', 'completed']);
    for (const operation of result.operations) expectOrdered(operation);
    // The retry honoured retry-after (1 s) before it started.
    const failedAt = Date.parse((failed as { endedAt: string }).endedAt);
    expect(Date.parse(retried!.startedAt) - failedAt).toBeGreaterThanOrEqual(900);
    expectNoProviderText(result);
  });

  it('500 on every attempt: two failed attempts (maxRetries 1), the run failed provider_failure', async () => {
    const result = await runAgainst([{ kind: 'status', status: 500 }], { maxRetries: 1 });
    expect(result.run.status).toBe('failed');
    expect(result.snapshot.run.failure).toMatchObject({ code: 'provider_failure' });
    expect(result.mock.requests).toHaveLength(2);
    expect(result.operations).toHaveLength(2);
    expect(result.operations.map((operation) => operation.failureReason)).toEqual([
      'server_error',
      'server_error',
    ]);
    expect(result.operations.map((operation) => operation.willRetry)).toEqual([true, false]);
    for (const operation of result.operations) {
      expect(operation).toMatchObject({ kind: 'model-request', phase: 'failed', step: 0 });
      expect(result.phases.get(operation.id)).toEqual(['started', 'failed']);
      expectOrdered(operation);
    }
    expect(result.snapshot.run.failure?.operationId).toBe(result.operations.at(-1)!.id);
    expectNoProviderText(result);
  });

  // A provider stream that breaks mid-answer is the provider's failure (issue 10).
  it('the stream breaks mid-answer: the text so far is checkpointed, the operation failed after first output, the run failed', async () => {
    const result = await runAgainst([{ kind: 'break', tokens, afterTokens: 3, tokenMs: 20 }]);
    expect(result.run.status).toBe('failed');
    expect(result.snapshot.run.failure).toMatchObject({ code: 'provider_failure' });
    expect(tokens.join('').startsWith(result.text)).toBe(true);
    const last = result.operations.at(-1)!;
    expect(result.phases.get(result.operations[0]!.id)).toEqual([
      'started',
      'first-output',
      'failed',
    ]);
    expect(last).toMatchObject({ kind: 'model-request', phase: 'failed' });
    for (const operation of result.operations) expectOrdered(operation);
    expectNoProviderText(result);
  });
});
