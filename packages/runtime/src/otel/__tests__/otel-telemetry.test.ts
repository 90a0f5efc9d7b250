import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { RunOperation, UIMessage } from '@runlight/protocol';
import { isStepCount, tool } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { nextEvent, user } from '../../runner/__tests__/harness';
import { createAgentRuntime } from '../../runner/agent-runtime';
import type { CompactFunction } from '../../runner/run-options';
import { createAgentRuntimeStore } from '../../store/agent-runtime-store';
import { createMemoryDriver } from '../../store/driver/memory-driver';
import { scriptedModel } from '../../testing/scripted-model';
import { createOtelTelemetry } from '../create-otel-telemetry';
import { millis, otelFixture, pointTotal } from './otel-fixture';

const RUN_ID = 'run-traced';
const PROVIDER_SECRET = 'sk-live-provider-secret-in-error-text';
const PROMPT = 'Find the invoice of ACME and pay it';
const TOOL_RESULT = 'invoice-4711-for-acme';
const TOOL_ERROR = 'database password hunter2 rejected';
const RUN_SPAN = 'invoke_agent runlight.run';

let fixture: ReturnType<typeof otelFixture> | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

/**
 * One run across two processes (two runtimes on one store, each with its own telemetry, both
 * exporting to one collector): process A creates it, compacts, retries a 503, runs a tool, and
 * stalls in the next request; process B (its clock ten minutes on: A's lease has expired) takes
 * it over, compacts, asks for an approval, is answered, and finishes.
 */
async function tracedRun() {
  const otel = otelFixture();
  fixture = otel;
  const telemetry = () =>
    createOtelTelemetry({
      tracerProvider: otel.tracerProvider,
      meterProvider: otel.meterProvider,
    });
  const driver = createMemoryDriver();
  const storeA = createAgentRuntimeStore(driver);
  const storeB = createAgentRuntimeStore(driver, {
    now: () => new Date(Date.now() + 10 * 60_000),
  });
  const lookup = tool({
    inputSchema: z.object({ customer: z.string() }),
    execute: async () => ({ invoice: TOOL_RESULT }),
  });
  const audit = tool({
    inputSchema: z.object({}),
    execute: async (): Promise<{ ok: boolean }> => {
      throw new Error(TOOL_ERROR);
    },
  });
  const pay = tool({
    inputSchema: z.object({ amount: z.number() }),
    execute: async ({ amount }) => ({ paid: amount }),
  });
  const tools = { lookup, audit, pay };
  const compacted: number[] = [];
  const compact: CompactFunction = ({ messages, step }) => {
    compacted.push(step);
    return { status: 'compacted', messages };
  };
  const a = createAgentRuntime({
    owner: 'worker-a',
    store: storeA,
    leaseMs: 600,
    telemetry: telemetry(),
    onLog: () => {},
  });
  const b = createAgentRuntime({
    owner: 'worker-b',
    store: storeB,
    telemetry: telemetry(),
    onLog: () => {},
  });

  const modelA = scriptedModel(
    [
      { error: { at: 'request', status: 503, retryAfterMs: 0, message: PROVIDER_SECRET } },
      {
        firstTokenMs: 5,
        toolCalls: [
          { toolName: 'lookup', input: { customer: 'ACME' } },
          { toolName: 'audit', input: {} },
        ],
      },
      { firstTokenMs: 60_000, text: 'never streamed' },
    ],
    { provider: 'scripted.chat', modelId: 'scripted-large' },
  );
  const stalled = nextEvent(
    a,
    RUN_ID,
    (event) =>
      event.type === 'run-operation' &&
      event.operation.kind === 'model-request' &&
      event.operation.step === 1,
  );
  const handleA = a.startRun({
    runId: RUN_ID,
    model: modelA,
    messages: user(PROMPT),
    tools,
    toolApproval: { pay: 'user-approval' },
    compact,
    stopWhen: isStepCount(5),
  });
  const created = await handleA.created;
  await stalled;

  const modelB = scriptedModel(
    [{ toolCalls: [{ toolName: 'pay', input: { amount: 5 } }] }, { text: 'Paid the invoice.' }],
    { provider: 'scripted.chat', modelId: 'scripted-large' },
  );
  const recovered = b.recoverRun({
    runId: RUN_ID,
    maxAttempts: 3,
    resolveRun: () => ({
      model: modelB,
      messages: user(PROMPT),
      tools,
      toolApproval: { pay: 'user-approval' },
      compact,
      stopWhen: isStepCount(5),
    }),
  });
  expect((await recovered.outcome).result).toBe('recovered');
  const paused = await recovered.done;
  expect(paused.status).toBe('running');
  // A learns it lost the run (its heartbeat is fenced) and stops.
  await handleA.done;

  const message = (await storeA.getSnapshot(RUN_ID)).assistant?.message as UIMessage;
  const approvalId = (
    message.parts.find((part) => part.type === 'tool-pay') as { approval: { id: string } }
  ).approval.id;
  const ended = await b.resumeRun({ runId: RUN_ID, approvals: [{ approvalId, approved: true }] })
    .done;
  expect(ended.status).toBe('completed');

  const operations = (await storeA.readEvents(RUN_ID)).flatMap((event) =>
    event.type === 'run-operation' ? [event.operation] : [],
  );
  const finals = new Map<string, RunOperation>();
  for (const operation of operations) finals.set(operation.id, operation);
  return {
    otel,
    created,
    ended,
    approvalId,
    compacted,
    operations,
    finals: [...finals.values()],
  };
}

const named = (spans: ReadableSpan[], name: string) => spans.filter((span) => span.name === name);
const attempts = (operations: RunOperation[], step: number) =>
  operations.filter((operation) => operation.kind === 'model-request' && operation.step === step);

describe('createOtelTelemetry: the durable facts of a run as spans', () => {
  it('one trace across takeover and approval: the run, its requests and compactions, with the records’ timestamps', async () => {
    const { otel, created, ended, approvalId, compacted, finals } = await tracedRun();
    const spans = otel.spans();

    // The trace is stored with the run and every span of both processes is in it.
    expect(created.trace).toMatchObject({ traceId: expect.stringMatching(/^[0-9a-f]{32}$/) });
    expect(ended.trace).toEqual(created.trace);
    expect(new Set(spans.map((span) => span.spanContext().traceId))).toEqual(
      new Set([created.trace?.traceId]),
    );

    // One run span (held by A, which created the run); every other span is its child.
    const [run] = named(spans, RUN_SPAN);
    expect(named(spans, RUN_SPAN)).toHaveLength(1);
    expect(run?.spanContext().spanId).toBe(created.trace?.spanId);
    expect(run?.attributes).toMatchObject({
      'runlight.run.id': RUN_ID,
      'gen_ai.operation.name': 'invoke_agent',
      'runlight.run.continued_elsewhere': true,
    });
    expect(millis(run!.startTime)).toBeLessThanOrEqual(Date.parse(created.createdAt));
    for (const span of spans.filter((span) => span !== run)) {
      expect(span.parentSpanContext?.spanId, span.name).toBe(created.trace?.spanId);
    }

    // A model request per step: attempts as events, GenAI attributes, the records' times.
    const requests = spans
      .filter((span) => span.attributes['gen_ai.operation.name'] === 'chat')
      .sort(
        (x, y) => Number(x.attributes['runlight.step']) - Number(y.attributes['runlight.step']),
      );
    expect(requests.map((span) => span.attributes['runlight.step'])).toEqual([0, 1, 2, 3]);
    const [first, stalledRequest] = requests;
    const step0 = attempts(finals, 0);
    expect(step0.map((operation) => [operation.attempt, operation.phase])).toEqual([
      [1, 'failed'],
      [2, 'completed'],
    ]);
    expect(first?.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'scripted-large',
      'gen_ai.provider.name': 'scripted.chat',
      'gen_ai.usage.input_tokens': 10,
      'runlight.run.id': RUN_ID,
      'runlight.attempt': 2,
      'runlight.operation.phase': 'completed',
    });
    expect(millis(first!.startTime)).toBe(Date.parse(step0[0]!.startedAt));
    expect(millis(first!.endTime)).toBe(Date.parse(step0[1]!.endedAt!));
    const firstEvents = first!.events.map((event) => [event.name, millis(event.time)]);
    expect(firstEvents).toEqual([
      ['runlight.attempt.failed', Date.parse(step0[0]!.endedAt!)],
      ['runlight.attempt.started', Date.parse(step0[1]!.startedAt)],
      ['runlight.first_output', Date.parse(step0[1]!.firstOutputAt!)],
    ]);
    expect(first!.events[0]?.attributes).toMatchObject({
      'runlight.attempt': 1,
      'runlight.failure.reason': 'server_error',
    });
    expect(first!.attributes['runlight.time_to_first_output_ms']).toBe(
      Date.parse(step0[1]!.firstOutputAt!) - Date.parse(step0[0]!.startedAt),
    );

    expect(requests.map((span) => span.name)).toEqual([
      'chat scripted-large',
      // The request A stalled in, ended by B (failed) before B knew a model: A's start, B's end.
      'chat',
      'chat scripted-large',
      'chat scripted-large',
    ]);
    const [step1] = attempts(finals, 1);
    expect(stalledRequest?.attributes).toMatchObject({
      'runlight.operation.phase': 'failed',
      'runlight.failure.code': 'provider_failure',
    });
    expect(stalledRequest?.status.code).toBe(2);
    expect(millis(stalledRequest!.startTime)).toBe(Date.parse(step1!.startedAt));
    expect(millis(stalledRequest!.endTime)).toBe(Date.parse(step1!.endedAt!));

    // A compaction span per step, with its outcome and times.
    const compactions = named(spans, 'runlight.compaction');
    expect(compactions.map((span) => span.attributes['runlight.step']).sort()).toEqual(compacted);
    for (const span of compactions) {
      const record = finals.find(
        (operation) => operation.id === span.attributes['runlight.operation.id'],
      );
      expect(span.attributes['runlight.compaction.outcome']).toBe('compacted');
      expect(millis(span.startTime)).toBe(Date.parse(record!.startedAt));
      expect(millis(span.endTime)).toBe(Date.parse(record!.endedAt!));
    }

    // Run-level facts B saw, where A holds the run span: marker spans in the run's trace.
    const takeover = named(spans, 'runlight.takeover');
    expect(takeover.map((span) => span.attributes['runlight.takeovers'])).toEqual([1]);
    expect(named(spans, 'runlight.approval.requested')[0]?.attributes).toMatchObject({
      'runlight.approval.id': approvalId,
    });
    expect(named(spans, 'runlight.approval.answered')[0]?.attributes).toMatchObject({
      'runlight.approval.id': approvalId,
      'runlight.approval.approved': true,
    });
    expect(named(spans, 'runlight.run.ended')[0]?.attributes).toMatchObject({
      'runlight.run.status': 'completed',
    });
    expect(millis(named(spans, 'runlight.run.ended')[0]!.startTime)).toBe(
      Date.parse(ended.updatedAt),
    );

    // No provider error text, prompt, tool input, tool result or tool error in any span.
    const exported = JSON.stringify(
      spans.map((span) => ({
        name: span.name,
        attributes: span.attributes,
        events: span.events,
        status: span.status,
      })),
    );
    for (const secret of [PROVIDER_SECRET, PROMPT, TOOL_RESULT, TOOL_ERROR, 'ACME', 'hunter2']) {
      expect(exported).not.toContain(secret);
    }
  });

  it('metrics: first output, provider wait, compaction, retries by reason, runs by status, stalled runs', async () => {
    const { otel } = await tracedRun();
    const metrics = await otel.metrics();
    expect(
      pointTotal(metrics, 'runlight.model_request.retries', {
        'runlight.failure.reason': 'server_error',
      }),
    ).toBe(1);
    expect(pointTotal(metrics, 'runlight.runs.ended', { 'runlight.run.status': 'completed' })).toBe(
      1,
    );
    expect(pointTotal(metrics, 'runlight.runs.stalled')).toBe(1);
    expect(pointTotal(metrics, 'runlight.recovery.latency')).toBe(1);
    expect(pointTotal(metrics, 'runlight.compaction.duration')).toBe(4);
    // Steps 0, 2 and 3 had first output; step 1 (stalled) waited until it was ended.
    expect(pointTotal(metrics, 'runlight.model_request.time_to_first_output')).toBe(3);
    expect(pointTotal(metrics, 'runlight.model_request.provider_wait')).toBe(4);
    const names = metrics.scopeMetrics.flatMap((scope) =>
      scope.metrics.flatMap((metric) =>
        metric.dataPoints.flatMap((point) => Object.keys(point.attributes)),
      ),
    );
    expect(new Set(names)).not.toContain('runlight.run.id');
  });
});
