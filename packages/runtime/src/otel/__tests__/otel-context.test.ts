import { trace } from '@opentelemetry/api';
import { tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { user } from '../../runner/__tests__/harness';
import { createAgentRuntime } from '../../runner/agent-runtime';
import { createAgentRuntimeStore } from '../../store/agent-runtime-store';
import { createMemoryDriver } from '../../store/driver/memory-driver';
import { scriptedModel } from '../../testing/scripted-model';
import { createOtelTelemetry } from '../create-otel-telemetry';
import { otelFixture } from './otel-fixture';

type Integrations = typeof globalThis.AI_SDK_TELEMETRY_INTEGRATIONS;
let fixture: ReturnType<typeof otelFixture> | undefined;
let saved: Integrations;
afterEach(async () => {
  globalThis.AI_SDK_TELEMETRY_INTEGRATIONS = saved;
  await fixture?.close();
  fixture = undefined;
});

describe('createOtelTelemetry: the context around the AI SDK call', () => {
  it('AI SDK telemetry spans nest under the run; the provider call runs in its request’s span', async () => {
    fixture = otelFixture();
    const tracer = fixture.tracerProvider.getTracer('app-ai-sdk-integration');
    // An AI SDK telemetry integration as an OpenTelemetry one would be: its model-call span
    // starts from the active context.
    saved = globalThis.AI_SDK_TELEMETRY_INTEGRATIONS;
    globalThis.AI_SDK_TELEMETRY_INTEGRATIONS = [
      {
        executeLanguageModelCall: ({ execute }) =>
          tracer.startActiveSpan('ai.model_call', async (span) => {
            try {
              return await execute();
            } finally {
              span.end();
            }
          }),
      },
    ];
    const inner = scriptedModel([{ text: 'Hello there' }], { modelId: 'scripted-small' });
    const activeInProvider: (string | undefined)[] = [];
    const model = new MockLanguageModelV4({
      provider: 'scripted',
      modelId: 'scripted-small',
      doStream: async (options) => {
        activeInProvider.push(trace.getActiveSpan()?.spanContext().spanId);
        return inner.doStream(options);
      },
    });
    const runtime = createAgentRuntime({
      owner: 'worker-a',
      store: createAgentRuntimeStore(createMemoryDriver()),
      telemetry: createOtelTelemetry({
        tracerProvider: fixture.tracerProvider,
        meterProvider: false,
      }),
      onLog: () => {},
    });
    const run = await runtime.startRun({ runId: 'run-ctx', model, messages: user('Hi') }).done;
    expect(run.status).toBe('completed');

    const spans = fixture.spans();
    const byName = (name: string) => spans.find((span) => span.name === name);
    const sdk = byName('ai.model_call');
    const request = byName('chat scripted-small');
    expect(sdk?.parentSpanContext?.spanId).toBe(run.trace?.spanId);
    expect(request?.parentSpanContext?.spanId).toBe(run.trace?.spanId);
    expect(activeInProvider).toEqual([request?.spanContext().spanId]);
  });

  it('maxRuns: past it the oldest run’s span ends here, marked continued elsewhere', async () => {
    fixture = otelFixture();
    const runtime = createAgentRuntime({
      owner: 'worker-a',
      store: createAgentRuntimeStore(createMemoryDriver()),
      telemetry: createOtelTelemetry({
        tracerProvider: fixture.tracerProvider,
        meterProvider: false,
        maxRuns: 1,
      }),
      onLog: () => {},
    });
    const pay = tool({ inputSchema: z.object({}), execute: async () => 'paid' });
    const paused = await runtime.startRun({
      runId: 'run-paused',
      model: scriptedModel([{ toolCalls: [{ toolName: 'pay', input: {} }] }]),
      messages: user('Pay'),
      tools: { pay },
      toolApproval: { pay: 'user-approval' },
    }).done;
    expect(paused.status).toBe('running');
    expect(fixture.spans().filter((span) => span.name === 'invoke_agent runlight.run')).toEqual([]);

    await runtime.startRun({
      runId: 'run-next',
      model: scriptedModel([{ text: 'Hi' }]),
      messages: user('Hi'),
    }).done;
    const runSpans = fixture.spans().filter((span) => span.name === 'invoke_agent runlight.run');
    expect(
      runSpans.map((span) => [
        span.attributes['runlight.run.id'],
        span.attributes['runlight.run.continued_elsewhere'] ?? false,
        span.attributes['runlight.run.status'] ?? null,
      ]),
    ).toEqual([
      ['run-paused', true, null],
      ['run-next', false, 'completed'],
    ]);
  });

  it('telemetry off: no trace stored, nothing changes in the run', async () => {
    const runtime = createAgentRuntime({
      owner: 'worker-a',
      store: createAgentRuntimeStore(createMemoryDriver()),
      onLog: () => {},
    });
    const run = await runtime.startRun({
      runId: 'run-plain',
      model: scriptedModel([{ text: 'Hi' }]),
      messages: user('Hi'),
    }).done;
    expect(run.status).toBe('completed');
    expect(run.trace).toBeUndefined();
  });

  it('the global no-op tracer: no trace stored (an invalid span context is no trace)', async () => {
    const runtime = createAgentRuntime({
      owner: 'worker-a',
      store: createAgentRuntimeStore(createMemoryDriver()),
      telemetry: createOtelTelemetry(),
      onLog: () => {},
    });
    const run = await runtime.startRun({
      runId: 'run-noop',
      model: scriptedModel([{ text: 'Hi' }]),
      messages: user('Hi'),
    }).done;
    expect(run.status).toBe('completed');
    expect(run.trace).toBeUndefined();
  });
});
