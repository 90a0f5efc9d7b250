import { describe, expect, it } from 'vitest';
import { user } from '../../runner/__tests__/harness';
import { createAgentRuntime } from '../../runner/agent-runtime';
import type { RuntimeLogEntry } from '../../runner/run-options';
import { createAgentRuntimeStore } from '../../store/agent-runtime-store';
import { createMemoryDriver } from '../../store/driver/memory-driver';
import { scriptedModel } from '../../testing/scripted-model';
import type { RunTelemetry } from '../run-telemetry';

describe('the runtime’s telemetry seam', () => {
  it('a telemetry that throws everywhere is logged and never fails the run', async () => {
    const boom = () => {
      throw new Error('telemetry exploded');
    };
    const telemetry: RunTelemetry = {
      traceForNewRun: boom,
      observe: boom,
      describeExecution: boom,
      recordUsage: boom,
      release: boom,
    };
    const logs: RuntimeLogEntry[] = [];
    const store = createAgentRuntimeStore(createMemoryDriver());
    const runtime = createAgentRuntime({
      owner: 'worker-a',
      store,
      telemetry,
      onLog: (entry) => logs.push(entry),
    });
    const run = await runtime.startRun({
      runId: 'run-1',
      model: scriptedModel([{ text: 'Still answered.' }]),
      messages: user('Hi'),
    }).done;
    expect(run.status).toBe('completed');
    expect(run.trace).toBeUndefined();
    const warned = logs.filter((entry) => entry.message === 'The telemetry threw; the run goes on');
    expect(warned.length).toBeGreaterThan(3);
    expect(warned.every((entry) => entry.runId === 'run-1' && entry.level === 'warn')).toBe(true);
  });

  it('observes every durable event the runtime committed, in revision order, with the run after it', async () => {
    const seen: [string, number, number][] = [];
    const store = createAgentRuntimeStore(createMemoryDriver());
    const runtime = createAgentRuntime({
      owner: 'worker-a',
      store,
      telemetry: { observe: (event, run) => seen.push([event.type, event.revision, run.revision]) },
      onLog: () => {},
    });
    await runtime.startRun({
      runId: 'run-1',
      model: scriptedModel([{ text: 'Hello' }]),
      messages: user('Hi'),
    }).done;
    const stored = await store.readEvents('run-1');
    expect(seen).toEqual(stored.map((event) => [event.type, event.revision, event.revision]));
  });
});
