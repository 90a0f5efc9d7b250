import { afterEach, describe, expect, it } from 'vitest';
import { user } from '../../runner/__tests__/harness';
import { createAgentRuntime } from '../../runner/agent-runtime';
import { createAgentRuntimeStore } from '../../store/agent-runtime-store';
import { createMemoryDriver } from '../../store/driver/memory-driver';
import { faultyDriver } from '../../testing/fault-driver';
import { scriptedModel } from '../../testing/scripted-model';
import { createOtelTelemetry } from '../create-otel-telemetry';
import { millis, otelFixture } from './otel-fixture';

let fixture: ReturnType<typeof otelFixture> | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

describe('createOtelTelemetry and writes whose answer was lost', () => {
  it('a request’s end that landed unseen still ends its span at the record’s time', async () => {
    fixture = otelFixture();
    const driver = faultyDriver(createMemoryDriver());
    driver.inject({
      call: 'compareAndSet',
      when: 'after',
      match: (event) => event.type === 'run-operation' && event.operation.phase === 'completed',
    });
    const store = createAgentRuntimeStore(driver);
    const runtime = createAgentRuntime({
      owner: 'worker-a',
      store,
      telemetry: createOtelTelemetry({
        tracerProvider: fixture.tracerProvider,
        meterProvider: false,
      }),
      onLog: () => {},
    });
    const run = await runtime.startRun({
      runId: 'run-landed',
      model: scriptedModel([{ text: 'Hello there' }], { modelId: 'scripted-small' }),
      messages: user('Hi'),
    }).done;
    expect(driver.fired).toBe(1);
    expect(run.status).toBe('completed');

    const completed = (await store.readEvents('run-landed')).flatMap((event) =>
      event.type === 'run-operation' && event.operation.phase === 'completed'
        ? [event.operation]
        : [],
    );
    const request = fixture.spans().find((span) => span.name === 'chat scripted-small');
    expect(request?.attributes['runlight.operation.phase']).toBe('completed');
    expect(millis(request!.endTime)).toBe(Date.parse(completed[0]!.endedAt!));
  });
});
